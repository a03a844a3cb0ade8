import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiBase, callRecipientApi } from './portal.page.api';
import { MAX_PARTIAL_UPLOADS, PARTIAL_UPLOAD_EXPIRY_HOURS } from './portal.uploads.limits';
import type { PortalRequest } from './portal.view';

// Resumable uploads (tus 1.0, `@tus/server` with its file store) on `/r/{token}/api/uploads`, behind the
// recipient's session. Unfinished uploads wait under DATA_DIR/uploads; a finished one is handed to the
// recipient API's own upload path (`POST /r/{token}/api/items/{item_id}/documents`), so it becomes a
// document with the same checks (state, item, type, size, count) and events as a multipart upload.

type TokenParams = { token: string; id?: string };

/**
 * Upload ids start with a digest of the link's token: an id is only good under its own link, and the
 * unfinished uploads of one link are counted from the directory listing alone.
 */
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

/** A multipart body holding one file in the part `file`, streamed from disk. */
function multipartOf(path: string, size: number, name: string, type: string) {
  const boundary = `gather-${randomBytes(16).toString('hex')}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Readable.from(
    (async function* () {
      yield head;
      yield* createReadStream(path);
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

export async function portalUploadRoutes(scope: FastifyInstance): Promise<void> {
  // Published as ES modules only.
  const { Server } = await import('@tus/server');
  const { FileStore } = await import('@tus/file-store');
  const { maxUploadBytes, dataDir } = scope.contexts.settings;
  const directory = join(dataDir, 'uploads');
  await mkdir(directory, { recursive: true });
  const datastore = new FileStore({
    directory,
    expirationPeriodInMilliseconds: PARTIAL_UPLOAD_EXPIRY_HOURS * 3_600_000,
  });
  /** The Fastify request of each tus request, for the hooks (which see only the web Request). */
  const origin = new WeakMap<IncomingMessage, FastifyRequest<{ Params: TokenParams }>>();
  const fastifyRequestOf = (req: { node?: { req: IncomingMessage } }) => origin.get(req.node!.req)!;

  const tus = new Server({
    path: '/r/uploads',
    datastore,
    maxSize: maxUploadBytes,
    relativeLocation: true,
    generateUrl: (req, { id }) => `${apiBase(fastifyRequestOf(req as never).params.token)}/uploads/${id}`,
    namingFunction: (req) =>
      `${tokenTag(fastifyRequestOf(req as never).params.token)}${randomBytes(16).toString('hex')}`,
    async onUploadFinish(req, upload) {
      const request = fastifyRequestOf(req as never);
      const { item_id: itemId, filename, filetype } = upload.metadata ?? {};
      const path = join(directory, upload.id);
      const multipart = multipartOf(path, upload.size!, filename ?? 'upload', filetype || 'application/octet-stream');
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
        await datastore.remove(upload.id).catch(() => undefined);
      }
    },
  });

  const sweep = setInterval(
    () =>
      void tus
        .cleanUpExpiredUploads()
        .catch((err: unknown) => scope.log.warn({ err }, 'sweeping expired uploads failed')),
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
        const refusal = await refuseCreation(session.view, request, token);
        if (refusal) return reply.code(refusal.status).send(`${refusal.detail}\n`);
      }
    }
    origin.set(request.raw, request);
    reply.hijack();
    await tus.handle(request.raw, reply.raw);
  }

  /** Why a new upload is not taken before its bytes come: no such upload item, or too many unfinished. */
  async function refuseCreation(
    view: PortalRequest,
    request: FastifyRequest,
    token: string,
  ): Promise<{ status: number; detail: string } | null> {
    const metadata = parseUploadMetadata(request.headers['upload-metadata'] as string | undefined);
    if (!metadata.filename) return { status: 400, detail: 'Upload-Metadata must name the file (filename)' };
    const item = view.items.find((i) => i.id === metadata.item_id);
    if (!item) return { status: 404, detail: 'Item not found' };
    if (item.type !== 'UPLOAD') return { status: 422, detail: 'Only UPLOAD items take files' };
    const tag = tokenTag(token);
    const unfinished = (await readdir(directory)).filter(
      (name) => name.startsWith(tag) && !name.endsWith('.json'),
    ).length;
    if (unfinished >= MAX_PARTIAL_UPLOADS)
      return {
        status: 429,
        detail: `At most ${MAX_PARTIAL_UPLOADS} unfinished uploads per link; finish or cancel one first`,
      };
    return null;
  }

  await scope.register(async (uploads) => {
    // tus reads PATCH bodies itself.
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const open = { config: { public: true } };
    uploads.all<{ Params: TokenParams }>('/r/:token/api/uploads', open, handle);
    uploads.all<{ Params: TokenParams }>('/r/:token/api/uploads/:id', open, handle);
  });
}
