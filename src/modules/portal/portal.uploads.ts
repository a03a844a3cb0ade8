import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import { Type, type TSchema } from '@sinclair/typebox';
import type { DataStore } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors/app-error';
import { DetailBody } from '../../kernel/rest/schemas';
import { isUuid } from '../../kernel/validation/input-check';
import { detectType, SNIFF_BYTES } from '../files/file.service';
import { uploadRuleFor, type UploadRules } from '../items/item.upload-rules';
import { createS3Client, sdkLogger } from '../../kernel/storage/s3';
import { apiBase, callRecipientApi } from './portal.page.api';
import { PgLocker } from './portal.uploads.locker';
import { PARTIAL_UPLOAD_EXPIRY_HOURS } from './portal.uploads.limits';
import {
  forgetExpiredPartialUploads,
  releasePartialUpload,
  reservePartialUpload,
  type Refusal,
} from './portal.uploads.reservations';
import type { PortalRequest } from './portal.view';

// Resumable uploads (tus 1.0, `@tus/server`) on `/r/{token}/api/uploads`, behind the recipient's session.
// Unfinished uploads wait under DATA_DIR/uploads, or with S3 storage in its bucket, where every instance
// finds them (their lock is PostgreSQL's, portal.uploads.locker.ts); a finished one is handed to the
// recipient API's own upload path (`POST /r/{token}/api/items/{item_id}/documents`), so it becomes a
// document with the same checks (state, item, type, size, count) and events as a multipart upload.
// The table partial_upload counts the unfinished ones (portal.uploads.reservations.ts).

type TokenParams = { token: string; id?: string };

/** A tus store whose finished uploads can be read back (both stores used here can). */
type UploadStore = DataStore & { read(id: string): Readable | Promise<Readable> };

/** Upload ids start with a digest of the link's token: an id is only good under its own link. */
const tokenTag = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 16);

/** tus `Upload-Metadata`: `key base64value, key base64value`. */
export function parseUploadMetadata(header: string | undefined): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) metadata[key] = value ? Buffer.from(value, 'base64').toString('utf8') : '';
  }
  return metadata;
}

/** The session of a tus request, as the recipient API sees it: the request view, or why not. */
async function recipientView(scope: FastifyInstance, request: FastifyRequest<{ Params: TokenParams }>) {
  const answer = await callRecipientApi(scope, request, {
    method: 'GET',
    path: `${apiBase(request.params.token)}/request`,
  });
  return answer.status === 200 ? { view: answer.json<PortalRequest>() } : { refused: answer };
}

/** A multipart body holding one file in the part `file`, streamed from the upload store. */
function multipartOf(source: Readable, size: number, name: string, type: string) {
  const boundary = `gather-${randomBytes(16).toString('hex')}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Readable.from(
    (async function* () {
      yield head;
      yield* source;
      yield tail;
    })(),
  );
  return {
    body,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + size + tail.length),
    },
  };
}

type TusSchema = { summary: string; params?: TSchema; response?: Record<number, unknown> };

const TokenParamsSchema = Type.Object({ token: Type.String({ maxLength: 200 }) });
const UploadParams = Type.Object({ token: Type.String({ maxLength: 200 }), id: Type.String({ maxLength: 200 }) });

/** tus answers in headers and plain text; the session's refusals are the recipient API's JSON. */
const tusResponses = (answers: Record<number, string>) => ({
  ...Object.fromEntries(
    Object.entries(answers).map(([status, description]) => [status, { description, type: 'null' }]),
  ),
  404: DetailBody,
  410: DetailBody,
});

const TUS_OPTIONS: TusSchema = {
  summary: 'tus: the versions, extensions and largest size this server takes, in headers',
  response: { 204: { description: '`Tus-Version`, `Tus-Extension`, `Tus-Max-Size`', type: 'null' } },
};

/**
 * `Store` whose removals (a finished or a cancelled upload) forget the upload's reservation too, before
 * the answer goes out: a recipient who cancels one upload may begin the next at once.
 */
function releasingStore<S extends new (...args: any[]) => UploadStore>(
  Store: S,
  release: (id: string) => Promise<void>,
) {
  return class extends Store {
    override async remove(id: string): Promise<void> {
      await super.remove(id);
      await release(id);
    }
  };
}

export async function portalUploadRoutes(scope: FastifyInstance): Promise<void> {
  // Published as ES modules only.
  const { Server } = await import('@tus/server');
  const { maxUploadBytes, unfinishedUploadBytes, dataDir, storageConfig } = scope.contexts.settings;
  const expirationPeriodInMilliseconds = PARTIAL_UPLOAD_EXPIRY_HOURS * 3_600_000;
  const release = (id: string) => releasePartialUpload(scope.db, id);
  let datastore: UploadStore;
  /** Deletes a finished upload's bytes, and forgets it. */
  let discardFinished: (id: string) => Promise<void>;
  if (storageConfig.driver === 's3') {
    const { S3Store } = await import('@tus/s3-store');
    const { bucket, region, endpoint, credentials, forcePathStyle } = storageConfig;
    datastore = new (releasingStore(S3Store, release))({
      expirationPeriodInMilliseconds,
      // No cache of the uploads' descriptions: another instance may have finished or deleted an upload
      // since, and a cache of every upload seen would only grow.
      cache: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
      s3ClientConfig: {
        bucket,
        region,
        endpoint,
        credentials,
        forcePathStyle,
        // As createS3Client: S3-compatible services may not understand the SDK's default checksums.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        logger: sdkLogger(scope.log),
      },
    });
    // The store's own remove aborts the multipart upload, which S3 no longer knows once it completed
    // (NoSuchUpload): a finished upload's object and description are deleted here.
    const s3 = createS3Client({ ...storageConfig, log: scope.log });
    discardFinished = async (id) => {
      await s3.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: id }, { Key: `${id}.info` }] } }),
      );
      await release(id);
    };
  } else {
    const { FileStore } = await import('@tus/file-store');
    const directory = join(dataDir, 'uploads');
    await mkdir(directory, { recursive: true });
    datastore = new (releasingStore(FileStore, release))({ directory, expirationPeriodInMilliseconds });
    discardFinished = (id) => datastore.remove(id);
  }
  const locker = new PgLocker(scope.orm.config.get('clientUrl')!, scope.log);
  scope.addHook('onClose', () => locker.close());
  /** The Fastify request of each tus request, for the hooks (which see only the web Request). */
  const origin = new WeakMap<IncomingMessage, FastifyRequest<{ Params: TokenParams }>>();
  const fastifyRequestOf = (req: { node?: { req: IncomingMessage } }) => origin.get(req.node!.req)!;
  /** The upload each creation reserved, until its answer (a creation failing after it gives it back). */
  const reserved = new WeakMap<object, string>();

  const tus = new Server({
    path: '/r/uploads',
    datastore,
    locker,
    maxSize: maxUploadBytes,
    relativeLocation: true,
    generateUrl: (req, { id }) => `${apiBase(fastifyRequestOf(req as never).params.token)}/uploads/${id}`,
    namingFunction: (req) =>
      `${tokenTag(fastifyRequestOf(req as never).params.token)}${randomBytes(16).toString('hex')}`,
    async onUploadCreate(req, upload) {
      const request = fastifyRequestOf(req as never);
      const refusal = await reservePartialUpload(
        scope.db,
        {
          id: upload.id,
          itemId: upload.metadata!.item_id!,
          linkTag: tokenTag(request.params.token),
          length: upload.size!,
        },
        unfinishedUploadBytes,
      );
      if (refusal) throw { status_code: refusal.status, body: `${refusal.detail}\n` };
      reserved.set(req, upload.id);
      return {};
    },
    async onIncomingRequest(req, id) {
      if (req.method !== 'PATCH') return;
      const refusal = await refuseHead(id);
      if (!refusal) return;
      await datastore.remove(id).catch((err: unknown) => scope.log.warn({ err }, 'deleting a refused upload failed'));
      throw { status_code: 422, body: `${refusal}\n` };
    },
    async onResponseError(req) {
      const id = reserved.get(req);
      if (id === undefined) return undefined;
      // The store failed to make the upload: nothing is left to count. One that exists keeps its place.
      const exists = await datastore.getUpload(id).then(
        () => true,
        () => false,
      );
      if (!exists) await release(id);
      return undefined;
    },
    async onUploadFinish(req, upload) {
      const request = fastifyRequestOf(req as never);
      const { item_id: itemId, filename, filetype } = upload.metadata ?? {};
      const multipart = multipartOf(
        await datastore.read(upload.id),
        upload.size!,
        filename ?? 'upload',
        filetype || 'application/octet-stream',
      );
      try {
        const answer = await callRecipientApi(scope, request, {
          method: 'POST',
          path: `${apiBase(request.params.token)}/items/${encodeURIComponent(itemId!)}/documents`,
          payload: multipart.body,
          headers: multipart.headers,
        });
        if (answer.status !== 200) throw { status_code: answer.status, body: answer.body };
        return { status_code: 204 };
      } finally {
        // Kept or refused, the bytes are not needed any more: a refused file is sent anew, not resumed.
        await discardFinished(upload.id).catch((err: unknown) =>
          scope.log.warn({ err }, 'deleting a finished upload failed'),
        );
      }
    },
  });

  /**
   * Why an unfinished upload's first bytes, once enough have arrived, are of a type its item does not
   * accept (checked as the next bytes come, so a refused file is not sent whole; its end is checked again).
   */
  async function refuseHead(id: string): Promise<string | null> {
    const upload = await datastore.getUpload(id).catch(() => null);
    const itemId = upload?.metadata?.item_id;
    if (!upload?.offset || upload.size == null || !itemId || !isUuid(itemId)) return null;
    if (upload.offset < Math.min(SNIFF_BYTES, upload.size)) return null;
    const [row] = await scope.db.rows<{ upload_rules: UploadRules | null }>(
      'select upload_rules from request_item where id = ?',
      [itemId],
    );
    const check = uploadRuleFor(row?.upload_rules ?? null, upload.metadata?.filename ?? null).check;
    if (!check) return null;
    const chunks: Buffer[] = [];
    let length = 0;
    const stream = await datastore.read(id);
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= SNIFF_BYTES) break;
    }
    stream.destroy();
    try {
      check(await detectType(Buffer.concat(chunks).subarray(0, SNIFF_BYTES)));
      return null;
    } catch (err) {
      if (err instanceof AppError) return err.message;
      throw err;
    }
  }

  const sweep = setInterval(
    () =>
      void Promise.all([tus.cleanUpExpiredUploads(), forgetExpiredPartialUploads(scope.db)]).catch((err: unknown) =>
        scope.log.warn({ err }, 'sweeping expired uploads failed'),
      ),
    3_600_000,
  );
  sweep.unref();
  scope.addHook('onClose', async () => clearInterval(sweep));

  async function handle(request: FastifyRequest<{ Params: TokenParams }>, reply: FastifyReply) {
    const { token, id } = request.params;
    if (id !== undefined && !id.startsWith(tokenTag(token))) return reply.code(404).send('Upload not found\n');
    if (request.method !== 'OPTIONS') {
      const session = await recipientView(scope, request);
      if (session.refused)
        return reply.code(session.refused.status).header('content-type', 'application/json').send(session.refused.body);
      if (request.method === 'POST') {
        const refusal = refuseCreation(session.view, request);
        if (refusal) return reply.code(refusal.status).send(`${refusal.detail}\n`);
      }
    }
    origin.set(request.raw, request);
    reply.hijack();
    await tus.handle(request.raw, reply.raw);
  }

  /**
   * Why a new upload is not taken before its bytes come: no size given, or no such upload item (the
   * limits on unfinished uploads are checked as it is recorded, in `onUploadCreate`).
   */
  function refuseCreation(view: PortalRequest, request: FastifyRequest): Refusal | null {
    // An upload of deferred length would reserve nothing and be bounded only by its bytes; the portal's
    // client always knows the size of its file.
    if (request.headers['upload-defer-length'] !== undefined)
      return { status: 400, detail: 'Upload-Length is required: uploads of deferred length are not taken' };
    const metadata = parseUploadMetadata(request.headers['upload-metadata'] as string | undefined);
    if (!metadata.filename) return { status: 400, detail: 'Upload-Metadata must name the file (filename)' };
    const item = view.items.find((i) => i.id === metadata.item_id);
    if (!item) return { status: 404, detail: 'Item not found' };
    if (item.type !== 'UPLOAD') return { status: 422, detail: 'Only UPLOAD items take files' };
    // The item's largest file refuses an upload before its bytes; its types are checked on them, when it ends.
    const largest = item.upload_rules?.max_file_bytes;
    const length = Number(request.headers['upload-length']);
    if (largest != null && length > largest)
      return { status: 422, detail: `This item takes files of at most ${largest} bytes` };
    return null;
  }

  await scope.register(async (uploads) => {
    // tus reads PATCH bodies itself.
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // The methods of tus 1.0 (core, creation, termination), each documented for a client to find.
    const route = (method: 'OPTIONS' | 'POST' | 'HEAD' | 'PATCH' | 'DELETE', url: string, schema: TusSchema) =>
      uploads.route<{ Params: TokenParams }>({
        method,
        url,
        // @fastify/swagger leaves HEAD routes out unless told: this one is tus's offset query.
        config: { public: true, openapi: { recipient: method !== 'OPTIONS' }, swagger: { exposeHeadRoute: true } },
        schema: { tags: ['Recipient API'], ...schema },
        handler: handle,
      });
    const one = '/r/:token/api/uploads/:id';
    route('OPTIONS', '/r/:token/api/uploads', TUS_OPTIONS);
    route('POST', '/r/:token/api/uploads', {
      summary:
        'tus: start a resumable upload (`Upload-Length`; `Upload-Metadata` with `item_id`, `filename`, `filetype`); its URL in `Location`',
      params: TokenParamsSchema,
      response: tusResponses({ 201: 'created: `Location` is its URL', 400: 'no `filename` in `Upload-Metadata`' }),
    });
    route('OPTIONS', one, TUS_OPTIONS);
    route('HEAD', one, {
      summary: 'tus: how much of an upload arrived (`Upload-Offset`), to resume from there',
      params: UploadParams,
      response: tusResponses({ 200: '`Upload-Offset` and `Upload-Length` in headers' }),
    });
    route('PATCH', one, {
      summary:
        'tus: send bytes from `Upload-Offset` (`application/offset+octet-stream`); the last ones make it a document of its item',
      params: UploadParams,
      response: tusResponses({
        204: 'taken: the new `Upload-Offset` in headers',
        409: '`Upload-Offset` is not where the upload stands',
      }),
    });
    route('DELETE', one, {
      summary: 'tus: give up an unfinished upload',
      params: UploadParams,
      response: tusResponses({ 204: 'its bytes are deleted' }),
    });
  });
}
