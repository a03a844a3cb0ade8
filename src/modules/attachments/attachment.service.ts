import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { StoredFile } from '../files/file.entities';
import { deleteReferences, saveUpload } from '../files/file.service';
import { requireItem, requireItemForUpdate, requireOpen } from '../items/item.service';
import { findVisibleRequest, findVisibleRequestForUpdate } from '../requests/request.access';
import { Attachment, type AttachmentRow } from './attachment.entities';

type Ctx = Pick<GraphQLContext, 'em' | 'viewer' | 'storage' | 'settings' | 'log'>;

// Who sees an attachment: a library attachment (no request) its owner only; a request's or an item's
// whoever sees the request, who may also change them while the request is open.

/** Uploads a file into the caller's library. */
export async function uploadAttachment(ctx: Ctx, upload: IncomingFile): Promise<Attachment> {
  return saveUpload(ctx, upload, {}, async (tx, file) =>
    tx.create(Attachment, {
      organization: ctx.viewer.organizationId,
      owner: ctx.viewer.userId,
      file,
      request: null,
      item: null,
      position: 0,
    }),
  );
}

export async function getAttachment(ctx: Pick<Ctx, 'em' | 'viewer'>, id: string): Promise<Attachment | null> {
  if (!isUuid(id)) return null;
  const attachment = await ctx.em.findOne(Attachment, { id, organization: ctx.viewer.organizationId });
  if (!attachment) return null;
  if (!attachment.request) return attachment.owner.id === ctx.viewer.userId ? attachment : null;
  return (await findVisibleRequest(ctx.em, ctx.viewer, attachment.request.id)) ? attachment : null;
}

/** The caller's library, newest first. */
export function listAttachments(ctx: Pick<Ctx, 'em' | 'viewer'>, args: PageArgs): Promise<Connection<AttachmentRow>> {
  const qb = ctx.em.createQueryBuilder(Attachment, 'a').where({ owner: ctx.viewer.userId, request: null });
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'DESC' });
}

/** The file of an item attachment, for its download. */
/** The file of an attachment the caller sees (its library's, or one of a request it sees). */
export async function getAttachmentFile(ctx: Pick<Ctx, 'em' | 'viewer'>, id: string): Promise<StoredFile> {
  const attachment = await getAttachment(ctx, id);
  if (!attachment) throw AppError.notFound('Attachment');
  return ctx.em.findOneOrFail(StoredFile, attachment.file.id);
}

export async function getItemAttachmentFile(
  ctx: Pick<Ctx, 'em' | 'viewer'>,
  requestId: string,
  itemId: string,
  id: string,
): Promise<StoredFile> {
  const attachment = await getAttachment(ctx, id);
  if (!attachment || attachment.request?.id !== requestId || attachment.item?.id !== itemId)
    throw AppError.notFound('Attachment');
  return ctx.em.findOneOrFail(StoredFile, attachment.file.id);
}

/** Refuses one more file on an item (or request) that holds the most it may. */
async function checkRoom(
  ctx: Ctx,
  em: EntityManager,
  where: { request: string; item: string | null },
): Promise<number> {
  const count = await em.count(Attachment, where);
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
): Promise<Attachment> {
  // Checked before the bytes are read, so a refused upload costs nothing; checked again below, locked.
  const { request } = await requireItem(ctx.em, ctx, itemId, requestId);
  requireOpen(request);
  await checkRoom(ctx, ctx.em, { request: requestId, item: itemId });
  return saveUpload(ctx, upload, {}, async (tx, file) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, itemId, requestId);
    requireOpen(request);
    const position = await checkRoom(ctx, tx, { request: request.id, item: item.id });
    return tx.create(Attachment, {
      organization: ctx.viewer.organizationId,
      owner: ctx.viewer.userId,
      file,
      request,
      item,
      position,
    });
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
    const attachment = isUuid(id)
      ? await tx.findOne(Attachment, { id, organization: ctx.viewer.organizationId })
      : null;
    const inScope =
      attachment &&
      (scope.requestId == null || attachment.request?.id === scope.requestId) &&
      (scope.itemId == null || attachment.item?.id === scope.itemId);
    if (!attachment || !inScope) throw AppError.notFound('Attachment');
    if (attachment.request) {
      const request = await findVisibleRequestForUpdate(tx, ctx.viewer, attachment.request.id);
      if (!request) throw AppError.notFound('Attachment');
      requireOpen(request);
    } else if (attachment.owner.id !== ctx.viewer.userId) {
      throw AppError.notFound('Attachment');
    }
    tx.remove(attachment);
    return { result: id, fileIds: [attachment.file.id] };
  });
}

/**
 * Library attachments of the caller named at request or item creation (problems go to `check`); the
 * rows to copy onto the request by `attachFiles`.
 */
export async function findLibraryAttachments(
  ctx: Pick<Ctx, 'em' | 'viewer' | 'settings'>,
  check: InputCheck,
  path: FieldPath,
  ids: readonly string[] | null | undefined,
): Promise<Attachment[]> {
  if (!ids?.length) return [];
  check.count(path, [...ids], { max: ctx.settings.maxFilesPerItem });
  const valid = ids.filter(isUuid);
  const found = valid.length
    ? await ctx.em.find(Attachment, { id: { $in: valid }, owner: ctx.viewer.userId, request: null })
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

/** Copies library attachments onto a request (or one of its items): new rows, the same bytes. */
export function attachFiles(
  em: EntityManager,
  sources: Attachment[],
  request: { readonly id: string; readonly organization: { readonly id: string } },
  item: { readonly id: string } | null,
  firstPosition = 0,
): Attachment[] {
  return sources.map((source, index) =>
    em.create(Attachment, {
      organization: request.organization.id,
      owner: source.owner,
      file: source.file,
      request: request.id,
      item: item?.id ?? null,
      position: firstPosition + index,
    }),
  );
}
