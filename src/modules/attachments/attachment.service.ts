import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import type { StoredFileRow } from '../files/file.entities';
import { deleteReferences, requireStoredFile, saveUpload } from '../files/file.service';
import { requireItem, requireItemForUpdate, requireOpen } from '../items/item.service';
import { findVisibleRequest } from '../requests/request.access';
import { Attachment, type AttachmentRow } from './attachment.entities';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'storage' | 'settings' | 'log'>;

// Who sees an attachment: a library attachment (no request) its owner only; a request's or an item's
// whoever sees the request, who may also change them while the request is open.

/** Uploads a file into the caller's library. */
export async function uploadAttachment(ctx: Ctx, upload: IncomingFile): Promise<AttachmentRow> {
  return saveUpload(ctx, upload, {}, async (tx, file) => {
    const [attachment] = await tx.insert(Attachment, [
      {
        organization: ctx.viewer.organizationId,
        owner: ctx.viewer.userId,
        file: file.id,
        request: null,
        item: null,
        position: 0,
      },
    ]);
    return attachment;
  });
}

export async function getAttachment(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<AttachmentRow | null> {
  if (!isUuid(id)) return null;
  const [attachment] = await ctx.db.records(
    Attachment,
    'select * from attachment where id = ? and organization_id = ?',
    [id, ctx.viewer.organizationId],
  );
  if (!attachment) return null;
  if (!attachment.request) return attachment.owner.id === ctx.viewer.userId ? attachment : null;
  return (await findVisibleRequest(ctx.db, ctx.viewer, attachment.request.id)) ? attachment : null;
}

/** The caller's library, newest first. */
export function listAttachments(ctx: Pick<Ctx, 'db' | 'viewer'>, args: PageArgs): Promise<Connection<AttachmentRow>> {
  return paginate(
    {
      db: ctx.db,
      entity: Attachment,
      sql: 'select a.* from attachment a where a.owner_id = ? and a.request_id is null',
      params: [ctx.viewer.userId],
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'DESC' },
  );
}

/** The file of an attachment the caller sees (its library's, or one of a request it sees). */
export async function getAttachmentFile(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<StoredFileRow> {
  const attachment = await getAttachment(ctx, id);
  if (!attachment) throw AppError.notFound('Attachment');
  return requireStoredFile(ctx.db, attachment.file.id);
}

/** The file of an item attachment, for its download. */
export async function getItemAttachmentFile(
  ctx: Pick<Ctx, 'db' | 'viewer'>,
  requestId: string,
  itemId: string,
  id: string,
): Promise<StoredFileRow> {
  const attachment = await getAttachment(ctx, id);
  if (!attachment || attachment.request?.id !== requestId || attachment.item?.id !== itemId)
    throw AppError.notFound('Attachment');
  return requireStoredFile(ctx.db, attachment.file.id);
}

/** Refuses one more file on an item (or request) that holds the most it may. */
async function checkRoom(ctx: Ctx, db: Reader, where: { request: string; item: string | null }): Promise<number> {
  const [{ count }] = await db.rows<{ count: number }>(
    `select count(*)::int as count from attachment where request_id = ? and ${where.item === null ? 'item_id is null' : 'item_id = ?'}`,
    where.item === null ? [where.request] : [where.request, where.item],
  );
  if (count >= ctx.settings.maxFilesPerItem) {
    throw AppError.validation([
      {
        field: ['file'],
        message: `An item holds at most ${ctx.settings.maxFilesPerItem} attachments`,
        code: 'TOO_MANY',
      },
    ]);
  }
  return count;
}

/** Uploads a file attached to an item, to help its recipient complete it. */
export async function uploadItemAttachment(
  ctx: Ctx,
  requestId: string,
  itemId: string,
  upload: IncomingFile,
): Promise<AttachmentRow> {
  // Checked before the bytes are read, so a refused upload costs nothing; checked again below, locked.
  const { request } = await requireItem(ctx.db, ctx, itemId, requestId);
  requireOpen(request);
  await checkRoom(ctx, ctx.db, { request: requestId, item: itemId });
  return saveUpload(ctx, upload, {}, async (tx, file) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, itemId, requestId);
    requireOpen(request);
    const position = await checkRoom(ctx, tx, { request: request.id, item: item.id });
    const [attachment] = await tx.insert(Attachment, [
      {
        organization: ctx.viewer.organizationId,
        owner: ctx.viewer.userId,
        file: file.id,
        request: request.id,
        item: item.id,
        position,
      },
    ]);
    return attachment;
  });
}

/**
 * Deletes an attachment: one of the caller's library, or one of a request or item the caller sees
 * (of request `requestId` and item `itemId` when given). Its bytes go with the last row that uses them.
 */
export async function deleteAttachment(
  ctx: Ctx,
  id: string,
  scope: { requestId?: string | null; itemId?: string | null } = {},
): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const [attachment] = isUuid(id)
      ? await tx.records(Attachment, 'select * from attachment where id = ? and organization_id = ?', [
          id,
          ctx.viewer.organizationId,
        ])
      : [];
    const inScope =
      attachment &&
      (scope.requestId == null || attachment.request?.id === scope.requestId) &&
      (scope.itemId == null || attachment.item?.id === scope.itemId);
    if (!attachment || !inScope) throw AppError.notFound('Attachment');
    if (attachment.request) {
      const request = await findVisibleRequest(tx, ctx.viewer, attachment.request.id, { forUpdate: true });
      if (!request) throw AppError.notFound('Attachment');
      requireOpen(request);
    } else if (attachment.owner.id !== ctx.viewer.userId) {
      throw AppError.notFound('Attachment');
    }
    await tx.execute('delete from attachment where id = ?', [attachment.id]);
    return { result: id, fileIds: [attachment.file.id] };
  });
}

/**
 * Library attachments of the caller named at request or item creation (problems go to `check`); the
 * rows to copy onto the request by `attachFiles`.
 */
export async function findLibraryAttachments(
  ctx: Pick<Ctx, 'db' | 'viewer' | 'settings'>,
  check: InputCheck,
  path: FieldPath,
  ids: readonly string[] | null | undefined,
): Promise<AttachmentRow[]> {
  if (!ids?.length) return [];
  check.count(path, [...ids], { max: ctx.settings.maxFilesPerItem });
  const valid = ids.filter(isUuid);
  const found = valid.length
    ? await ctx.db.records(
        Attachment,
        'select * from attachment where id = any(?::uuid[]) and owner_id = ? and request_id is null',
        [valid, ctx.viewer.userId],
      )
    : [];
  const byId = new Map(found.map((a) => [a.id, a]));
  const seen = new Set<string>();
  return ids.flatMap((id, index) => {
    check.uuid([...path, index], id);
    if (isUuid(id) && !byId.has(id)) check.add([...path, index], 'Names no attachment of yours', 'NOT_FOUND');
    if (seen.has(id)) check.add([...path, index], 'The same attachment appears twice', 'INVALID');
    seen.add(id);
    return byId.get(id) ?? [];
  });
}

/** Copies of library attachments for a request (or one of its items): new rows, the same bytes. */
export const attachmentCopies = (
  sources: readonly AttachmentRow[],
  request: { readonly id: string; readonly organization: { readonly id: string } },
  item: { readonly id: string } | null,
  firstPosition = 0,
) =>
  sources.map((source, index) => ({
    organization: request.organization.id,
    owner: source.owner,
    file: source.file,
    request: request.id,
    item: item?.id ?? null,
    position: firstPosition + index,
  }));

/** Copies library attachments onto a request (or one of its items). */
export function attachFiles(
  tx: Tx,
  sources: readonly AttachmentRow[],
  request: { readonly id: string; readonly organization: { readonly id: string } },
  item: { readonly id: string } | null,
  firstPosition = 0,
): Promise<AttachmentRow[]> {
  return tx.insert(Attachment, attachmentCopies(sources, request, item, firstPosition));
}
