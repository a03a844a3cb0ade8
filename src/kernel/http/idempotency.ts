import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_IDEMPOTENCY_KEY } from '../limits';
import { extractApiKey } from './auth';
import type { EdgeStore } from './edge-store';
import { replyRefusal } from './refusal';

// `Idempotency-Key` on POST (the REST rows that take JSON, and POST /graphql): the first call with a
// key runs and its answer is kept for IDEMPOTENCY_KEY_HOURS; a retry with the same key and body gets
// that answer again (status and body) and runs nothing; the same key with another body is a 422.
// Keys belong to the credential that sent them. The first call inserts the key's row before it runs,
// so a concurrent second call finds the row and gets a 409 at once (it does not wait: a client
// retries after `Retry-After`, as it would after a dropped connection).

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that honours `Idempotency-Key`. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The key this request holds while it runs, set when it was the first to use it. */
    idempotencyKey?: { scope: string; key: string };
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * The headers that describe an answer's body, replayed with it; the rate-limit headers of the retry
 * are its own.
 */
const REPLAYED_HEADERS = ['content-type', 'api-revision', 'location'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Printable ASCII without spaces: what clients send (UUIDs, random strings), safe in a log line. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

function headerValue(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_HEADER];
  return Array.isArray(value) ? value[0] : value;
}

function refuseKey(request: FastifyRequest, reply: FastifyReply, message: string, type: string): FastifyReply {
  return replyRefusal(request, reply, {
    status: 422,
    message,
    extensions: { code: type === 'idempotency_key_reused' ? 'IDEMPOTENCY_KEY_REUSED' : 'BAD_USER_INPUT' },
    detail: [{ loc: ['header', 'Idempotency-Key'], msg: message, type }],
  });
}

function replyInUse(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('Retry-After', '1');
  return replyRefusal(request, reply, {
    status: 409,
    message: 'A request with this Idempotency-Key is still running; retry once it has finished',
    extensions: { code: 'IDEMPOTENCY_KEY_IN_USE' },
  });
}

/** Replays, refuses or lets run a POST that carries a key; keeps the answer of one that ran. */
export function registerIdempotency(app: FastifyInstance, store: EdgeStore): void {
  app.decorateRequest('idempotencyKey', undefined);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.routeOptions.config?.idempotent) return;
    const key = headerValue(request);
    if (key === undefined) return;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY)
      return refuseKey(
        request,
        reply,
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`,
        'string_length',
      );
    if (!KEY_PATTERN.test(key))
      return refuseKey(request, reply, 'Idempotency-Key must be printable ASCII without spaces', 'invalid');
    // A recipient's cookie session carries no header credential: its keys are not kept.
    const credential = extractApiKey(request.headers);
    if (!credential) return;
    const scope = sha256(credential);
    const fingerprint = sha256(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    // Twice at most: a first call that failed on the service's side releases its key meanwhile.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await store.claimKey(scope, key, fingerprint)) {
        request.idempotencyKey = { scope, key };
        return;
      }
      const stored = await store.findKey(scope, key);
      if (!stored) continue;
      if (stored.fingerprint !== fingerprint) {
        return refuseKey(
          request,
          reply,
          'This Idempotency-Key was used with another request; send a new key for a new request',
          'idempotency_key_reused',
        );
      }
      if (stored.status === null) return replyInUse(request, reply);
      return reply
        .code(stored.status)
        .headers(stored.headers)
        .header('Idempotent-Replayed', 'true')
        .send(stored.response);
    }
    // Released twice in a row by failing first calls: let the caller retry later.
    return replyInUse(request, reply);
  });

  // The answer is kept before it leaves: a retry that arrives once the client has it finds it.
  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotencyKey;
    if (!held) return payload;
    request.idempotencyKey = undefined;
    const status = reply.statusCode;
    // A failure of the service is not the answer to keep; nor is a stream, which cannot be sent twice.
    const body =
      payload === null || payload === undefined
        ? ''
        : typeof payload === 'string'
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : undefined;
    if (status >= 500 || body === undefined) {
      await store.releaseKey(held.scope, held.key);
      return payload;
    }
    const headers = Object.fromEntries(
      REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])),
    );
    await store.completeKey(held.scope, held.key, { status, headers, response: body });
    return payload;
  });
}
