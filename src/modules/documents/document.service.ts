import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { isUuid } from '../../kernel/validation/input-check';
import { StoredFile, type StoredFileRow } from '../files/file.entities';
import { deleteReferences, requireStoredFile, saveUpload } from '../files/file.service';
import { RequestItem, type RequestItemRow } from '../items/item.entities';
import { requireItemForUpdate, requireOpen } from '../items/item.service';
import { patternedName } from '../items/item.upload-rules';
import {
  findEventRequest,
  findVisibleRequest,
  requireVisibleRequest,
  requireVisibleRequestForUpdate,
} from '../requests/request.access';
import type { StoredEvent } from '../../kernel/events/topics';
import type { RequestRow } from '../requests/request.entities';
import { Document, type DocumentRow } from './document.entities';

type Ctx = Pick<GraphQLContext, 'db' | 'storage' | 'settings'> &
  Pick<GraphQLContext, 'viewer' | 'events' | 'log' | 'requestId'>;

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
): Promise<DocumentRow> {
  return saveUpload(ctx, upload, {}, async (tx, file) => {
    const { item, request } = await requireItemForUpdate(tx, ctx, itemId, requestId);
    requireOpen(request);
    const [{ count }] = await tx.rows<{ count: number }>(
      'select count(*)::int as count from document where item_id = ?',
      [item.id],
    );
    if (count >= ctx.settings.maxFilesPerItem) {
      throw AppError.validation([
        {
          field: ['file'],
          message: `An item holds at most ${ctx.settings.maxFilesPerItem} documents`,
          code: 'TOO_MANY',
        },
      ]);
    }
    const [document] = await tx.insert(Document, [
      { organization: request.organization, request: request.id, item: item.id, file: file.id },
    ]);
    await ctx.events.emit(tx, ctx.viewer, {
      topic: 'document.uploaded',
      subjectType: 'Document',
      subjectId: document.id,
      requestId: request.id,
    });
    return document;
  });
}

export async function getDocument(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<DocumentRow | null> {
  const [document] = isUuid(id) ? await ctx.db.records(Document, 'select * from document where id = ?', [id]) : [];
  if (!document) return null;
  return (await findVisibleRequest(ctx.db, ctx.viewer, document.request.id)) ? document : null;
}

/** The document an event is about, for a subscriber who sees its request. */
export async function getDocumentSubject(
  ctx: Pick<Ctx, 'db' | 'viewer'>,
  event: StoredEvent,
): Promise<DocumentRow | null> {
  const request = await findEventRequest(ctx, event);
  if (!request) return null;
  const [document] = await ctx.db.records(Document, 'select * from document where id = ? and request_id = ?', [
    event.subjectId,
    request.id,
  ]);
  return document ?? null;
}

/** The file of a document, for its download, and the name it is downloaded under (see `outsideNames`). */
export async function getDocumentFile(
  ctx: Pick<Ctx, 'db' | 'viewer'>,
  id: string,
): Promise<{ file: StoredFileRow; name: string }> {
  const document = await getDocument(ctx, id);
  if (!document) throw AppError.notFound('Document');
  const file = await requireStoredFile(ctx.db, document.file.id);
  const [item] = await ctx.db.records(RequestItem, 'select * from request_item where id = ?', [document.item.id]);
  if (!item.uploadRules?.fileNamePattern) return { file, name: file.name };
  // Its number in the item needs its item's documents before it.
  const documents = await ctx.db.records(
    Document,
    'select * from document where item_id = ? and (created_at, id) <= (?, ?) order by created_at, id',
    [item.id, document.createdAt, document.id],
  );
  const request = await requireVisibleRequest(ctx.db, ctx.viewer, document.request.id);
  const names = await outsideNames(ctx.db, request, [
    { item, documents: documents.map((d) => ({ document: d, file: d.id === document.id ? file : null })) },
  ]);
  return { file, name: names.get(document.id)! };
}

/**
 * The names documents take outside the API (the download, the zip, cloud copies): their item's file name
 * pattern, `{n}` counting the item's documents in the order they came (`groups` lists them so), else the
 * name they were uploaded under, which the API keeps showing.
 */
async function outsideNames(
  db: Reader,
  request: RequestRow,
  groups: { item: RequestItemRow; documents: { document: DocumentRow; file: StoredFileRow | null }[] }[],
): Promise<Map<string, string>> {
  const recipients = groups.some(({ item }) => item.uploadRules?.fileNamePattern)
    ? new Map(
        (
          await db.rows<{ id: string; first_name: string | null; last_name: string | null }>(
            'select id, first_name, last_name from recipient where request_id = ?',
            [request.id],
          )
        ).map((row) => [row.id, row]),
      )
    : new Map();
  const names = new Map<string, string>();
  for (const { item, documents } of groups) {
    const pattern = item.uploadRules?.fileNamePattern;
    documents.forEach(({ document, file }, index) => {
      if (!file) return;
      if (!pattern) return names.set(document.id, file.name);
      const recipient = recipients.get(document.recipient?.id ?? item.assignee?.id ?? '');
      const values = {
        request_name: request.name,
        item_name: item.name,
        recipient_first_name: recipient?.first_name ?? '',
        recipient_last_name: recipient?.last_name ?? '',
        date: document.createdAt.toISOString().slice(0, 10),
      };
      names.set(document.id, patternedName(pattern, values, index + 1, file.name));
    });
  }
  return names;
}

/** A request's documents, oldest first by default. */
export function listRequestDocuments(
  ctx: Pick<Ctx, 'db'>,
  request: { id: string },
  args: PageArgs,
): Promise<Connection<DocumentRow>> {
  return paginate(
    { db: ctx.db, entity: Document, sql: 'select d.* from document d where d.request_id = ?', params: [request.id] },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'ASC' },
  );
}

export async function deleteDocument(ctx: Ctx, id: string): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const [document] = isUuid(id) ? await tx.records(Document, 'select * from document where id = ?', [id]) : [];
    if (!document || !(await findVisibleRequest(tx, ctx.viewer, document.request.id, { forUpdate: true })))
      throw AppError.notFound('Document');
    await tx.execute('delete from document where id = ?', [document.id]);
    return { result: id, fileIds: [document.file.id] };
  });
}

/**
 * Removes every document of a request in the caller's transaction (one run by `deleteReferences`,
 * which then releases the files): the owner's bulk delete, expiry and retention.
 */
export async function removeRequestDocuments(
  tx: Tx,
  requestId: string,
): Promise<{ documentIds: string[]; fileIds: string[] }> {
  const removed = await tx.rows<{ id: string; file_id: string }>(
    'delete from document where request_id = ? returning id, file_id',
    [requestId],
  );
  return { documentIds: removed.map((d) => d.id), fileIds: removed.map((d) => d.file_id) };
}

/** Deletes every document of a request; the ids deleted. */
export async function deleteRequestDocuments(ctx: Ctx, requestId: string): Promise<string[]> {
  return deleteReferences(ctx, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const { documentIds, fileIds } = await removeRequestDocuments(tx, request.id);
    return { result: documentIds, fileIds };
  });
}

export type ItemDocuments = {
  item: RequestItemRow;
  /** `name`: the name outside the API (see `outsideNames`). */
  documents: { document: DocumentRow; file: StoredFileRow; name: string }[];
};

/**
 * A visible request's documents with their files, grouped by item in item order, and its filled forms (for the zip).
 */
export async function documentsByItem(
  ctx: Pick<Ctx, 'db' | 'viewer'>,
  requestId: string,
): Promise<{ request: RequestRow; items: ItemDocuments[] }> {
  const request = await requireVisibleRequest(ctx.db, ctx.viewer, requestId);
  const [items, documents] = await Promise.all([
    ctx.db.records(RequestItem, 'select * from request_item where request_id = ? order by position', [request.id]),
    ctx.db.records(Document, 'select * from document where request_id = ? order by created_at, id', [request.id]),
  ]);
  const fileIds = documents.map((document) => document.file.id);
  const files = new Map(
    (fileIds.length
      ? await ctx.db.records(StoredFile, 'select * from stored_file where id = any(?::uuid[])', [fileIds])
      : []
    ).map((file) => [file.id, file]),
  );
  const byItem = new Map<string, { document: DocumentRow; file: StoredFileRow }[]>();
  for (const document of documents) {
    const group = byItem.get(document.item.id) ?? [];
    group.push({ document, file: files.get(document.file.id)! });
    byItem.set(document.item.id, group);
  }
  const groups = items
    .filter((item) => byItem.has(item.id) || (item.formAnswers && !item.deletedAt))
    .map((item) => ({ item, documents: byItem.get(item.id) ?? [] }));
  const names = await outsideNames(ctx.db, request, groups);
  return {
    request,
    items: groups.map(({ item, documents }) => ({
      item,
      documents: documents.map((entry) => ({ ...entry, name: names.get(entry.document.id)! })),
    })),
  };
}
