import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_HOURS, MAX_IDEMPOTENCY_KEY } from '../limits';
import { credentialOf } from './auth';
import type { Db, HeldTransaction } from '../db/db';
import { replyRefusal } from './refusal';

// `Idempotency-Key` on POST (the REST rows that take JSON, and POST /graphql): the first call with a
// key runs and its answer is kept for IDEMPOTENCY_KEY_HOURS; a retry with the same key and body gets
// that answer again (status and body) and runs nothing; the same key with another body is a 422.
// Keys belong to the credential that sent them. The call runs in a transaction held from here to its
// answer (`request.transaction`, which its operation's writes join), and its answer is kept in that
// transaction: a write and its key commit together, so a retry after any crash finds either both or
// neither. While it runs it holds a lock on its key, so a concurrent second call gets a 409 at once
// (a client retries after `Retry-After`, as it would after a dropped connection); the lock ends with
// its transaction, whatever ends it.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that honours `Idempotency-Key`. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The key this request holds while it runs, set when it was the first to use it. */
    idempotencyKey?: { scope: string; key: string; fingerprint: string };
    /** The transaction a call with a key runs in, its key kept in it (operations' contexts use it). */
    transaction?: HeldTransaction;
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

type StoredKey = { fingerprint: string; status: number; headers: Record<string, string>; response: string };

/** Ends the request's transaction without keeping anything (a failure of the service, an aborted call). */
async function rollBack(request: FastifyRequest): Promise<void> {
  const held = request.transaction;
  request.transaction = undefined;
  request.idempotencyKey = undefined;
  await held?.rollback();
}

/** Replays, refuses or lets run a POST that carries a key; keeps the answer of one that ran, with its write. */
export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotencyKey', undefined);
  app.decorateRequest('transaction', undefined);

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
    // A recipient's cookie session carries no header credential: its keys are not kept. A signed-in user's
    // session keeps them as an API key does.
    const credential = credentialOf(request.headers)?.value;
    if (!credential) return;
    const scope = sha256(credential);
    const fingerprint = sha256(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    const tx = await db.begin();
    try {
      const [{ held }] = await tx.rows<{ held: boolean }>(
        'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as held',
        [`${scope} ${key}`],
      );
      if (!held) {
        await tx.rollback();
        return replyInUse(request, reply);
      }
      const [stored] = await tx.rows<StoredKey>(
        'select fingerprint, status, headers, response from idempotency_key where scope = ? and key = ? and expires_at > now()',
        [scope, key],
      );
      if (!stored) {
        request.transaction = tx;
        request.idempotencyKey = { scope, key, fingerprint };
        return;
      }
      await tx.rollback();
      if (stored.fingerprint !== fingerprint) {
        return refuseKey(
          request,
          reply,
          'This Idempotency-Key was used with another request; send a new key for a new request',
          'idempotency_key_reused',
        );
      }
      return reply
        .code(stored.status)
        .headers(stored.headers)
        .header('Idempotent-Replayed', 'true')
        .send(stored.response);
    } catch (err) {
      await tx.rollback();
      throw err;
    }
  });

  // The answer is kept, and the call's writes committed with it, before it leaves: a retry that
  // arrives once the client has it finds it.
  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotencyKey;
    const tx = request.transaction;
    if (!held || !tx) return payload;
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
      await rollBack(request);
      return payload;
    }
    const headers = Object.fromEntries(
      REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])),
    );
    request.transaction = undefined;
    request.idempotencyKey = undefined;
    try {
      // An expired key's row is replaced.
      await tx.execute(
        `insert into idempotency_key (scope, key, fingerprint, status, headers, response, created_at, expires_at)
         values (?, ?, ?, ?, ?::jsonb, ?, now(), now() + make_interval(hours => ?))
         on conflict (scope, key) do update
           set fingerprint = excluded.fingerprint, status = excluded.status, headers = excluded.headers,
               response = excluded.response, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [held.scope, held.key, held.fingerprint, status, JSON.stringify(headers), body, IDEMPOTENCY_KEY_HOURS],
      );
      await tx.commit();
    } catch (err) {
      await tx.rollback();
      throw err;
    }
    return payload;
  });

  // A call that ended without an answer to keep (aborted, or failed before one was made).
  app.addHook('onResponse', rollBack);
  app.addHook('onRequestAbort', rollBack);
}
