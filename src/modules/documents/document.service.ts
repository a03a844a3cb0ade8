import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import { renderForAnswer, type EmittingContext } from '../../kernel/events/render';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { isUuid } from '../../kernel/validation/input-check';
import { StoredFile } from '../files/file.entities';
import { deleteReferences, saveUpload } from '../files/file.service';
import { RequestItem } from '../items/item.entities';
import { requireItemForUpdate, requireOpen } from '../items/item.service';
import {
  findEventRequest,
  findVisibleRequest,
  findVisibleRequestForUpdate,
  requireVisibleRequest,
  requireVisibleRequestForUpdate,
} from '../requests/request.access';
import type { StoredEvent } from '../../kernel/events/topics';
import type { RequestRow } from '../requests/request.entities';
import { Document, type DocumentRow } from './document.entities';

type Ctx = Pick<GraphQLContext, 'em' | 'storage' | 'settings'> & EmittingContext;

// Documents are seen, downloaded and deleted by whoever sees their request.

/**
 * Stores a file submitted to an item. The recipient flow (its own issue) is the door recipients will
 * use; until then owners and tests call this directly.
 */
export async function submitDocument(
  ctx: Ctx,
  requestId: string,
  itemId: string,
  upload: IncomingFile,
): Promise<Document> {
  return saveUpload(ctx, upload, {}, async (tx, file) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, itemId, requestId);
    requireOpen(request);
    if ((await tx.count(Document, { item: item.id })) >= ctx.settings.maxFilesPerItem) {
      throw AppError.validation([
        {
          field: ['file'],
          message: `An item holds at most ${ctx.settings.maxFilesPerItem} documents`,
          code: 'TOO_MANY',
        },
      ]);
    }
    const document = tx.create(Document, { organization: request.organization, request, item, file });
    const data = await renderForAnswer(tx, ctx, { type: 'Document', id: document.id, requestId: request.id });
    await ctx.events.emit(tx, ctx.viewer, {
      topic: 'document.uploaded',
      subjectType: 'Document',
      subjectId: document.id,
      requestId: request.id,
      data,
    });
    return document;
  });
}

export async function getDocument(ctx: Pick<Ctx, 'em' | 'viewer'>, id: string): Promise<Document | null> {
  const document = isUuid(id) ? await ctx.em.findOne(Document, id) : null;
  if (!document) return null;
  return (await findVisibleRequest(ctx.em, ctx.viewer, document.request.id)) ? document : null;
}

/** The file of a document, for its download. */
/** The document an event is about, for a subscriber who sees its request. */
export async function getDocumentSubject(
  ctx: Pick<Ctx, 'em' | 'viewer'>,
  event: StoredEvent,
): Promise<Document | null> {
  const request = await findEventRequest(ctx, event);
  return request && ctx.em.findOne(Document, { id: event.subjectId, request: request.id });
}

export async function getDocumentFile(ctx: Pick<Ctx, 'em' | 'viewer'>, id: string): Promise<StoredFile> {
  const document = await getDocument(ctx, id);
  if (!document) throw AppError.notFound('Document');
  return ctx.em.findOneOrFail(StoredFile, document.file.id);
}

/** A request's documents, oldest first by default. */
export function listRequestDocuments(
  ctx: Pick<Ctx, 'em'>,
  request: { id: string },
  args: PageArgs,
): Promise<Connection<DocumentRow>> {
  const qb = ctx.em.createQueryBuilder(Document, 'd').where({ request: request.id });
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'ASC' });
}

export async function deleteDocument(ctx: Ctx, id: string): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const document = isUuid(id) ? await tx.findOne(Document, id) : null;
    if (!document || !(await findVisibleRequestForUpdate(tx, ctx.viewer, document.request.id)))
      throw AppError.notFound('Document');
    tx.remove(document);
    return { result: id, fileIds: [document.file.id] };
  });
}

/**
 * Removes every document of a request in the caller's transaction (one run by `deleteReferences`,
 * which then releases the files): the owner's bulk delete, expiry and retention.
 */
export async function removeRequestDocuments(
  tx: EntityManager,
  requestId: string,
): Promise<{ documentIds: string[]; fileIds: string[] }> {
  const documents = await tx.find(Document, { request: requestId });
  tx.remove(documents);
  return { documentIds: documents.map((d) => d.id), fileIds: documents.map((d) => d.file.id) };
}

/** Deletes every document of a request; the ids deleted. */
export async function deleteRequestDocuments(ctx: Ctx, requestId: string): Promise<string[]> {
  return deleteReferences(ctx, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const { documentIds, fileIds } = await removeRequestDocuments(tx, request.id);
    return { result: documentIds, fileIds };
  });
}

export type ItemDocuments = { item: RequestItem; documents: { document: Document; file: StoredFile }[] };

/**
 * A visible request's documents with their files, grouped by item in item order, and its filled forms (for the zip).
 */
export async function documentsByItem(
  ctx: Pick<Ctx, 'em' | 'viewer'>,
  requestId: string,
): Promise<{ request: RequestRow; items: ItemDocuments[] }> {
  const request = await requireVisibleRequest(ctx.em, ctx.viewer, requestId);
  const [items, documents] = await Promise.all([
    ctx.em.find(RequestItem, { request: request.id }, { orderBy: { position: 'asc' } }),
    ctx.em.find(Document, { request: request.id }, { populate: ['file'], orderBy: { createdAt: 'asc', id: 'asc' } }),
  ]);
  const byItem = new Map<string, ItemDocuments['documents']>();
  for (const document of documents) {
    const group = byItem.get(document.item.id) ?? [];
    group.push({ document, file: document.file.getEntity() });
    byItem.set(document.item.id, group);
  }
  return {
    request,
    items: items
      .filter((item) => byItem.has(item.id) || (item.formAnswers && !item.deletedAt))
      .map((item) => ({ item, documents: byItem.get(item.id) ?? [] })),
  };
}
