import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { StoredFile, type StoredFileRow } from './file.entities';
import { storedFileName } from './file.names';
import { tooLarge } from '../../kernel/storage/storage';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'storage' | 'settings' | 'log'>;

// file-type reads at most 4,100 bytes for most types, but Office documents need their first zip
// entries, which may run longer.
export const SNIFF_BYTES = 64 * 1024;

export type DetectedType = { mimeType: string; extension: string | null };

/** The first `size` bytes of a stream, and a stream of all its bytes (the head included). */
async function readHead(source: Readable, size: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < size) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* all() {
    try {
      yield head;
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      // Stops the source when the consumer stops early (a limit hit, a storage failure).
      await iterator.return?.();
    }
  }
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}

/** The type a file's first bytes show; `text/plain` for UTF-8 text, else `application/octet-stream`. */
export async function detectType(head: Buffer): Promise<DetectedType> {
  // file-type is published as an ES module only.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(head);
  if (found) return { mimeType: found.mime, extension: found.ext };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    if (!head.includes(0)) return { mimeType: 'text/plain', extension: 'txt' };
  } catch {
    // not UTF-8
  }
  return { mimeType: 'application/octet-stream', extension: null };
}

export type UploadRule = {
  /** The MIME type to record for a detected type, or null when the operation refuses it (415). */
  accept?: (type: DetectedType) => string | null;
  /** Why a refused type is refused (the 415's detail). */
  refusal?: string;
  /** Refuses a detected type by throwing, before any byte is stored (an item's accepted types). */
  check?: (type: DetectedType) => void;
  /** Below the configured upload limit, for kinds of file that must stay smaller. */
  maxBytes?: number;
  /** The error for a file over `maxBytes`, when not the 413 of the service's own limit. */
  tooLarge?: () => AppError;
  /**
   * Checks the whole file before anything is stored (a throw refuses the upload); the file is then held in
   * memory, so only for kinds bounded by a small `maxBytes`.
   */
  inspect?: (bytes: Buffer, mimeType: string) => Promise<void>;
};

/** A stream's bytes, whole; a PAYLOAD_TOO_LARGE AppError once they pass `maxBytes`. */
export async function readWhole(source: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Stores an upload's bytes, then records them in one transaction with whatever `save` adds. The bytes
 * are complete before any row commits, and whatever fails (the stream, a limit, a rule in `save`, the
 * commit) leaves neither a row nor an object.
 */
export async function saveUpload<T>(
  ctx: Ctx,
  upload: IncomingFile,
  rule: UploadRule,
  save: (tx: Tx, file: StoredFileRow) => Promise<T>,
): Promise<T> {
  const maxBytes = Math.min(rule.maxBytes ?? Infinity, ctx.settings.maxUploadBytes);
  const { head, stream } = await readHead(upload.stream, SNIFF_BYTES);
  if (head.length === 0)
    throw AppError.validation([{ field: ['file'], message: 'The file is empty', code: 'REQUIRED' }]);
  const detected = await detectType(head);
  const mimeType = rule.accept ? rule.accept(detected) : detected.mimeType;
  if (!mimeType)
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `${rule.refusal ?? 'This type of file is not accepted'} (the content is ${detected.mimeType})`,
    );
  rule.check?.(detected);
  let body = stream;
  if (rule.inspect) {
    const bytes = await readWhole(stream, maxBytes);
    await rule.inspect(bytes, mimeType);
    body = Readable.from([bytes]);
  }
  const key = randomUUID();
  const { size, sha256 } = await ctx.storage.put(key, body, { maxBytes }).catch((err: unknown) => {
    throw rule.tooLarge && err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE' ? rule.tooLarge() : err;
  });
  try {
    return await ctx.db.transaction(async (tx) => {
      const [file] = await tx.insert(StoredFile, [
        {
          organization: ctx.viewer.organizationId,
          storageKey: key,
          name: storedFileName(upload.name, detected.extension),
          size,
          sha256,
          mimeType,
          claimedMimeType: upload.claimedType?.slice(0, 255) ?? null,
          // A recipient's upload was made by no user.
          createdBy: ctx.viewer.actor.type === 'USER' ? ctx.viewer.userId : null,
        },
      ]);
      return save(tx, file);
    });
  } catch (err) {
    await deleteObjects(ctx, [key]);
    throw err;
  }
}

/** A stored file by id, which a row's foreign key vouches for (an attachment's, a document's, a contract's). */
export async function requireStoredFile(db: Reader, id: string): Promise<StoredFileRow> {
  const [file] = await db.records(StoredFile, 'select * from stored_file where id = ?', [id]);
  if (!file) throw new Error(`StoredFile ${id} not found`);
  return file;
}

/** The bytes of a stored file. */
export function openFile(ctx: Pick<Ctx, 'storage'>, file: Pick<StoredFileRow, 'storageKey'>): Promise<Readable> {
  return ctx.storage.get(file.storageKey);
}

/** The bytes of a stored file, whole in memory: for files bounded by a small limit (contracts). */
export async function readFile(ctx: Pick<Ctx, 'storage'>, file: Pick<StoredFileRow, 'storageKey'>): Promise<Buffer> {
  return readWhole(await openFile(ctx, file), Infinity);
}

// Every table whose rows refer to a stored file: a file is released when none of them does.
const REFERENCES = ['attachment', 'document', 'contract', 'share_file'];

/**
 * Deletes the stored files among `fileIds` that no row refers to any more (call it after deleting the
 * rows, in the same transaction) and returns their storage keys, to delete once the transaction commits.
 */
export async function releaseFiles(tx: Tx, fileIds: string[]): Promise<string[]> {
  if (fileIds.length === 0) return [];
  // Locked first, so two transactions dropping the last two references cannot both see the other's
  // reference still there: the second one waits, then sees the first one's deletion.
  await tx.rows('select id from stored_file where id = any(?::uuid[]) for update', [fileIds]);
  const unreferenced = REFERENCES.map((table) => `not exists (select 1 from ${table} r where r.file_id = f.id)`).join(
    ' and ',
  );
  const rows = await tx.rows<{ storage_key: string }>(
    `delete from stored_file f where f.id = any(?::uuid[]) and ${unreferenced} returning storage_key`,
    [fileIds],
  );
  return rows.map((row) => row.storage_key);
}

/** Deletes objects whose rows are gone; a failure is logged (the object is then an orphan), not thrown. */
export async function deleteObjects(ctx: Pick<Ctx, 'storage' | 'log'>, keys: string[]): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      ctx.storage.delete(key).catch((err: unknown) => ctx.log.error({ err, key }, 'could not delete a stored object')),
    ),
  );
}

/**
 * Runs `work`, which deletes rows that refer to files and says which files; releases those no row
 * refers to any more, and deletes their objects after the commit.
 */
export async function deleteReferences<T>(
  ctx: Ctx,
  work: (tx: Tx) => Promise<{ result: T; fileIds: string[] }>,
): Promise<T> {
  const { result, keys } = await ctx.db.transaction(async (tx) => {
    const { result, fileIds } = await work(tx);
    return { result, keys: await releaseFiles(tx, fileIds) };
  });
  await deleteObjects(ctx, keys);
  return result;
}
