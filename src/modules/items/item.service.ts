import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import type { StoredEvent } from '../../kernel/events/topics';
import type { Topic } from '../events/event.topics';
import { renderForAnswer, renderSubject, type EmittingContext } from '../../kernel/events/render';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { ItemUpdateInput, RequestItemInput } from '../../generated/resolvers-types';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { checkContractIds } from '../contracts/contract.service';
import { deleteReferences } from '../files/file.service';
import { Recipient } from '../recipients/recipient.entities';
import {
  findEventRequest,
  findVisibleRequest,
  requireVisibleRequest,
  requireVisibleRequestForUpdate,
} from '../requests/request.access';
import type { Request, RequestRow } from '../requests/request.entities';
import { itemForms } from '../forms/form.service';
import { checkItemText, draftFromInput, formRefOf, type ItemDraft } from './item.drafts';
import { RequestItem, type RequestItemRow } from './item.entities';
import { itemParts, type ItemWrite } from './item.parts';
import { verifyRequestWhenSettled } from './item.review';
import { itemTransition } from './item.states';
import { MAX_ITEMS } from '../requests/request.limits';
import { insertRecords, newRecord } from '../../kernel/db/lean';
import { inTransaction } from '../../kernel/db/transaction';

type Ctx = Pick<GraphQLContext, 'em' | 'settings'> & EmittingContext;
type FileCtx = Pick<GraphQLContext, 'em' | 'settings' | 'storage'> & EmittingContext;

/**
 * New items at the end of a request, assigned to `assignee` (its first recipient), as lean records
 * for `insertRecords` (the caller inserts them, with the request's other new rows when it has some).
 */
export function newItems(
  em: EntityManager,
  request: { id: string; organization: { id: string } },
  drafts: (ItemDraft & { received?: boolean })[],
  assignee: { id: string } | null,
  firstPosition: number,
): RequestItemRow[] {
  // The draft's fields by name: a rest copy (`{ received, ...draft }`) and a spread of it made two
  // dictionary-mode objects per item, a sixth of what a create's own code allocated.
  return drafts.map((draft, index) =>
    newRecord(em, RequestItem, {
      kind: draft.type,
      name: draft.name,
      description: draft.description,
      required: draft.required,
      questionType: draft.questionType,
      answer: draft.answer,
      contractId: draft.contractId,
      form: draft.form,
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
    }),
  );
}

/**
 * The item and its request, if the request is visible to the viewer (and is `requestId` when given);
 * `findRequest` reads the request (a row) or locks it (a managed entity, for writers).
 */
async function itemWithRequest<R>(
  em: EntityManager,
  id: string,
  requestId: string | null | undefined,
  findRequest: (id: string) => Promise<R>,
): Promise<{ item: RequestItem; request: R }> {
  const item = isUuid(id) ? await em.findOne(RequestItem, { id, deletedAt: null }) : null;
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
  em: EntityManager,
  ctx: Pick<Ctx, 'viewer'>,
  id: string,
  requestId?: string | null,
): Promise<{ item: RequestItem; request: RequestRow }> {
  return itemWithRequest(em, id, requestId, (rid) => requireVisibleRequest(em, ctx.viewer, rid));
}

/** The item and its request, managed, the request locked until the transaction ends. */
export function requireItemForUpdate(
  em: EntityManager,
  ctx: Pick<Ctx, 'viewer'>,
  id: string,
  requestId?: string | null,
): Promise<{ item: RequestItem; request: Request }> {
  return itemWithRequest(em, id, requestId, (rid) => requireVisibleRequestForUpdate(em, ctx.viewer, rid));
}

/** An item, if its request is visible to the viewer. */
export async function getItem(ctx: Pick<Ctx, 'em' | 'viewer'>, id: string): Promise<RequestItem | null> {
  const item = isUuid(id) ? await ctx.em.findOne(RequestItem, id) : null;
  return item && (await findVisibleRequest(ctx.em, ctx.viewer, item.request.id)) ? item : null;
}

/** The item an event is about, deleted ones included, for a subscriber who sees its request. */
export async function getItemSubject(ctx: Pick<Ctx, 'em' | 'viewer'>, event: StoredEvent): Promise<RequestItem | null> {
  const request = await findEventRequest(ctx, event);
  return request && ctx.em.findOne(RequestItem, { id: event.subjectId, request: request.id });
}

/** A closed request keeps the items (and their files) it was closed with. */
export function requireOpen(request: RequestRow): void {
  if (request.state === 'CLOSED') throw AppError.invalidState('The request is closed; its items cannot change');
}

export async function createItem(ctx: FileCtx, requestId: string, input: RequestItemInput): Promise<RequestItemRow> {
  const check = new InputCheck();
  const draft = draftFromInput(check, [], input);
  await checkContractIds(ctx, check, [{ path: [], contractId: draft?.contractId ?? null }]);
  const [form] = await itemForms(ctx, check, [formRefOf([], input)]);
  if (draft) draft.form = form;
  const writes: ItemWrite[] = [];
  for (const part of itemParts.values())
    if (part.prepareCreate) writes.push(await part.prepareCreate(ctx, check, input));
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    requireOpen(request);
    const count = await tx.count(RequestItem, { request: request.id, deletedAt: null });
    if (count >= MAX_ITEMS) check.add([], `A request holds at most ${MAX_ITEMS} items`, 'TOO_MANY');
    check.done();
    // Positions only order items; removed ones keep theirs, so new ones go after every row.
    const last = await tx.findOne(RequestItem, { request: request.id }, { orderBy: { position: 'desc' } });
    const assignee = await tx.findOne(Recipient, { request: request.id }, { orderBy: { position: 'asc' } });
    const [item] = newItems(tx, request, [draft!], assignee, (last?.position ?? -1) + 1);
    await insertRecords(tx, [[RequestItem, [item]]]);
    for (const write of writes) write(tx, request, item);
    request.updatedAt = new Date();
    await emitItemEvent(tx, ctx, 'item.created', item);
    return item;
  });
}

/** Writes an item's event, last in its transaction (see emitRequestEvent). */
async function emitItemEvent(
  tx: EntityManager,
  ctx: Ctx,
  topic: Topic,
  item: RequestItemRow,
  data?: Record<string, unknown>,
) {
  const subject = { type: 'RequestItem', id: item.id, requestId: item.request.id };
  const rendered = data ?? (await renderForAnswer(tx, ctx, subject));
  return ctx.events.emit(tx, ctx.viewer, {
    topic,
    subjectType: subject.type,
    subjectId: subject.id,
    requestId: subject.requestId,
    data: rendered,
  });
}

export async function updateItem(
  ctx: Ctx,
  id: string,
  requestId: string | null | undefined,
  input: ItemUpdateInput,
): Promise<RequestItem> {
  const check = new InputCheck();
  checkItemText(check, [], { name: input.name, description: input.description }, false);
  if (input.name === null) check.add(['name'], 'Cannot be null', 'INVALID');
  if (input.required === null) check.add(['required'], 'Cannot be null', 'INVALID');
  check.done();
  return inTransaction(ctx.em, async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    requireOpen(request);
    const before = JSON.stringify([item.name, item.description, item.required]);
    if (input.name != null) item.name = input.name.trim();
    if (input.description !== undefined) item.description = input.description;
    if (input.required != null) item.required = input.required;
    if (JSON.stringify([item.name, item.description, item.required]) !== before)
      await emitItemEvent(tx, ctx, 'item.updated', item);
    return item;
  });
}

/** Deletes an item, and with it its attachments and documents (their bytes once nothing else uses them). */
export async function deleteItem(ctx: FileCtx, id: string, requestId?: string | null): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    requireOpen(request);
    // Rendered while still visible: the event shows the item as it was, files included.
    const { data } = await renderSubject(tx, ctx, { type: 'RequestItem', id: item.id, requestId: request.id });
    // The item row stays (soft-deleted, for its event); its attachments and documents go.
    const fileIds: string[] = [];
    for (const part of itemParts.values()) if (part.removeWith) fileIds.push(...(await part.removeWith(tx, item)));
    item.deletedAt = new Date();
    await emitItemEvent(tx, ctx, 'item.deleted', item, data);
    return { result: id, fileIds };
  });
}

/** Marks an item valid and approved; verifying a verified item changes nothing. */
export async function verifyItem(ctx: Ctx, id: string, requestId?: string | null): Promise<RequestItem> {
  return inTransaction(ctx.em, async (tx) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, id, requestId);
    const status = itemTransition(item.status, 'verify');
    if (status !== item.status) {
      item.status = status;
      item.verifiedAt = new Date();
      await emitItemEvent(tx, ctx, 'item.verified', item);
      await verifyRequestWhenSettled(tx, ctx, request);
    }
    return item;
  });
}
