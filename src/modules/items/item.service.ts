import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { StoredEvent } from '../../kernel/events/topics';
import type { Topic } from '../events/event.topics';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { ItemUpdateInput, RequestItemInput } from '../../generated/resolvers-types';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { checkContractIds } from '../contracts/contract.service';
import { deleteReferences } from '../files/file.service';
import {
  findEventRequest,
  findVisibleRequest,
  requireVisibleRequest,
  requireVisibleRequestForUpdate,
} from '../requests/request.access';
import { Request, type RequestRow } from '../requests/request.entities';
import { itemForms } from '../forms/form.service';
import { checkItemText, draftFromInput, formRefOf, type ItemDraft } from './item.drafts';
import { checkUploadRules } from './item.upload-rules';
import { RequestItem, type RequestItemRow } from './item.entities';
import { itemParts, type ItemWrite } from './item.parts';
import { verifyRequestWhenSettled } from './item.review';
import { itemTransition } from './item.states';
import { itemView } from './item.view';
import { MAX_ITEMS } from '../requests/request.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'settings' | 'viewer' | 'events' | 'log' | 'requestId'>;
type FileCtx = Ctx & Pick<GraphQLContext, 'storage'>;

/** Stores new items at the end of a request, assigned to `assignee` (its first recipient). */
export function insertItems(
  tx: Tx,
  request: { id: string; organization: { id: string } },
  drafts: (ItemDraft & { received?: boolean })[],
  assignee: { id: string } | null,
  firstPosition: number,
): Promise<RequestItemRow[]> {
  return tx.insert(
    RequestItem,
    drafts.map((draft, index) => ({
      kind: draft.type,
      name: draft.name,
      description: draft.description,
      required: draft.required,
      questionType: draft.questionType,
      answer: draft.answer,
      contractId: draft.contractId,
      form: draft.form,
      uploadRules: draft.uploadRules,
      organization: request.organization,
      request,
      position: firstPosition + index,
      formId: draft.form?.id ?? null,
      formAnswers: null,
      status: draft.received ? 'COMPLETE' : 'INCOMPLETE',
      isNa: false,
      assignee,
      verifiedAt: null,
      deletedAt: null,
    })),
  );
}

/**
 * The item and its request, if the request is visible to the viewer (and is `requestId` when given);
 * `findRequest` reads the request, or locks it (for writers).
 */
async function itemWithRequest(
  db: Reader,
  id: string,
  requestId: string | null | undefined,
  findRequest: (id: string) => Promise<RequestRow>,
): Promise<{ item: RequestItemRow; request: RequestRow }> {
  const [item] = isUuid(id)
    ? await db.records(RequestItem, 'select * from request_item where id = ? and deleted_at is null', [id])
    : [];
  if (!item || (requestId != null && item.request.id !== requestId)) throw AppError.notFound('Item');
  // Visibility of the item is the visibility of its request; a hidden request hides its items.
  try {
    return { item, request: await findRequest(item.request.id) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw AppError.notFound('Item');
    throw err;
  }
}

/** The item and its request as the viewer may read them (a check outside a transaction). */
export function requireItem(
  db: Reader,
  ctx: Pick<Ctx, 'viewer'>,
  id: string,
  requestId?: string | null,
): Promise<{ item: RequestItemRow; request: RequestRow }> {
  return itemWithRequest(db, id, requestId, (rid) => requireVisibleRequest(db, ctx.viewer, rid));
}

/** The item and its request, the request locked until the transaction ends. */
export function requireItemForUpdate(
  tx: Tx,
  ctx: Pick<Ctx, 'viewer'>,
  id: string,
  requestId?: string | null,
): Promise<{ item: RequestItemRow; request: RequestRow }> {
  return itemWithRequest(tx, id, requestId, (rid) => requireVisibleRequestForUpdate(tx, ctx.viewer, rid));
}

/** An item, if its request is visible to the viewer. */
export async function getItem(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<RequestItemRow | null> {
  const [item] = isUuid(id) ? await ctx.db.records(RequestItem, 'select * from request_item where id = ?', [id]) : [];
  return item && (await findVisibleRequest(ctx.db, ctx.viewer, item.request.id)) ? item : null;
}

/** The item an event is about, deleted ones included, for a subscriber who sees its request. */
export async function getItemSubject(
  ctx: Pick<Ctx, 'db' | 'viewer'>,
  event: StoredEvent,
): Promise<RequestItemRow | null> {
  const request = await findEventRequest(ctx, event);
  if (!request) return null;
  const [item] = await ctx.db.records(RequestItem, 'select * from request_item where id = ? and request_id = ?', [
    event.subjectId,
    request.id,
  ]);
  return item ?? null;
}

/** A closed request keeps the items (and their files) it was closed with. */
export function requireOpen(request: RequestRow): void {
  if (request.state === 'CLOSED') throw AppError.invalidState('The request is closed; its items cannot change');
}

export async function createItem(ctx: FileCtx, requestId: string, input: RequestItemInput): Promise<RequestItemRow> {
  const check = new InputCheck();
  const draft = draftFromInput(check, [], input, ctx.settings);
  await checkContractIds(ctx, check, [{ path: [], contractId: draft?.contractId ?? null }]);
  const [form] = await itemForms(ctx, check, [formRefOf([], input)]);
  if (draft) draft.form = form;
  const writes: ItemWrite[] = [];
  for (const part of itemParts.values())
    if (part.prepareCreate) writes.push(await part.prepareCreate(ctx, check, input));
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    requireOpen(request);
    // Positions only order items; removed ones keep theirs, so new ones go after every row.
    const [{ count, last }] = await tx.rows<{ count: number; last: number | null }>(
      'select count(*) filter (where deleted_at is null)::int as count, max(position) as last from request_item where request_id = ?',
      [request.id],
    );
    if (count >= MAX_ITEMS) check.add([], `A request holds at most ${MAX_ITEMS} items`, 'TOO_MANY');
    check.done();
    const [assignee] = await tx.rows<{ id: string }>(
      'select id from recipient where request_id = ? order by position limit 1',
      [request.id],
    );
    const [item] = await insertItems(tx, request, [draft!], assignee ?? null, (last ?? -1) + 1);
    for (const write of writes) await write(tx, request, item);
    await tx.update(Request, request.id, {});
    await emitItemEvent(tx, ctx, 'item.created', item);
    return item;
  });
}

/** Writes an item's event, last in its transaction (see emitRequestEvent). */
async function emitItemEvent(tx: Tx, ctx: Ctx, topic: Topic, item: RequestItemRow, data?: Record<string, unknown>) {
  return ctx.events.emit(tx, ctx.viewer, {
    topic,
    subjectType: 'RequestItem',
    subjectId: item.id,
    requestId: item.request.id,
    data: data ?? itemView(item),
  });
}

export async function updateItem(
  ctx: Ctx,
  id: string,
  requestId: string | null | undefined,
  input: ItemUpdateInput,
): Promise<RequestItemRow> {
  const check = new InputCheck();
  checkItemText(check, [], { name: input.name, description: input.description }, false);
  if (input.name === null) check.add(['name'], 'Cannot be null', 'INVALID');
  if (input.required === null) check.add(['required'], 'Cannot be null', 'INVALID');
  const uploadRules = checkUploadRules(check, ['uploadRules'], input.uploadRules, ctx.settings);
  check.done();
  return ctx.db.transaction(async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    requireOpen(request);
    if (uploadRules && item.kind !== 'UPLOAD')
      throw AppError.validation([
        { field: ['uploadRules'], message: 'Only an UPLOAD item takes upload rules', code: 'INVALID' },
      ]);
    const changed = {
      name: input.name != null ? input.name.trim() : item.name,
      description: input.description !== undefined ? input.description : item.description,
      required: input.required != null ? input.required : item.required,
      uploadRules: input.uploadRules !== undefined ? uploadRules : (item.uploadRules ?? null),
    };
    const before = [item.name, item.description, item.required, item.uploadRules ?? null];
    if (JSON.stringify(Object.values(changed)) === JSON.stringify(before)) return item;
    const updated = await tx.update(RequestItem, item.id, changed);
    await emitItemEvent(tx, ctx, 'item.updated', updated);
    return updated;
  });
}

/** Deletes an item, and with it its attachments and documents (their bytes once nothing else uses them). */
export async function deleteItem(ctx: FileCtx, id: string, requestId?: string | null): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    requireOpen(request);
    // The event shows the item as it was.
    const data = itemView(item);
    // The item row stays (soft-deleted, for its event); its attachments and documents go.
    const fileIds: string[] = [];
    for (const part of itemParts.values()) if (part.removeWith) fileIds.push(...(await part.removeWith(tx, item)));
    await tx.update(RequestItem, item.id, { deletedAt: new Date() });
    await emitItemEvent(tx, ctx, 'item.deleted', item, data);
    return { result: id, fileIds };
  });
}

/** Marks an item valid and approved; verifying a verified item changes nothing. */
export async function verifyItem(ctx: Ctx, id: string, requestId?: string | null): Promise<RequestItemRow> {
  return ctx.db.transaction(async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    const status = itemTransition(item.status, 'verify');
    if (status === item.status) return item;
    const verified = await tx.update(RequestItem, item.id, { status, verifiedAt: new Date() });
    await emitItemEvent(tx, ctx, 'item.verified', verified);
    await verifyRequestWhenSettled(tx, ctx, request);
    return verified;
  });
}
