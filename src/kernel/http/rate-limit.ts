import { createHash } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitSettings } from '../../config/config';
import type { Viewer } from '../graphql/context';
import { credentialOf } from './auth';
import type { EdgeStore } from './edge-store';
import { replyRefusal } from './refusal';

// Requests per window, counted in PostgreSQL (edge-store.ts) so that every instance on one database
// counts against the same limit. Each request counts against one bucket: its recipient link (a path
// under /r/{token}), else its credential (an API key, a recipient session's token, or a signed-in user's
// session cookie, which counts as an API key does), else its client
// address. A link or credential that names nothing counts against the address: made up afresh for
// each request, it would otherwise have a bucket of its own every time, never full (and a counter row
// each). A batch's operations and WebSocket operations count one each (`RateCounter`).

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Left out of rate limits (health checks a load balancer repeats). */
    unlimited?: boolean;
  }
}

/** The bucket a request counts against, with its limit's name in the settings. */
type Bucket = { kind: 'apiKey' | 'link' | 'address'; key: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A valid credential's bucket: a recipient session counts as its link does; an API key has a limit of its own. */
const credentialBucket = (credential: string): Bucket =>
  credential.startsWith('grs_')
    ? { kind: 'link', key: `session:${sha256(credential)}` }
    : { kind: 'apiKey', key: `key:${sha256(credential)}` };

export type RateLimitOptions = {
  /** The caller a request's credential names (null: none, or none valid), looked up once per request. */
  viewerOf: (request: FastifyRequest) => Promise<Viewer | null>;
  /** Whether a recipient link's token names a recipient. */
  linkExists: (token: string) => Promise<boolean>;
};

/** Counts beyond one per request. */
export type RateCounter = {
  /**
   * Counts `more` requests against the bucket `request` counted against (a batch's further
   * operations), and answers 429 past its limit.
   */
  countMore(request: FastifyRequest, reply: FastifyReply, more: number): Promise<void>;
  /** Counts one operation of a credential already checked (over WebSocket); the seconds to wait when over its limit. */
  countCredential(credential: string): Promise<number | undefined>;
};

/** What the limiter throws once a bucket is over its limit (answered by the hook below). */
class RateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(rateLimitedMessage(retryAfterSeconds));
  }
}

export const rateLimitedMessage = (retryAfterSeconds: number) => `Rate limit exceeded, retry in ${retryAfterSeconds} s`;

const refuse = (request: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number) =>
  replyRefusal(request, reply, {
    status: 429,
    message: rateLimitedMessage(retryAfterSeconds),
    extensions: { code: 'RATE_LIMITED', retryAfter: retryAfterSeconds },
  });

export async function registerRateLimits(
  app: FastifyInstance,
  store: EdgeStore,
  settings: RateLimitSettings,
  options: RateLimitOptions,
): Promise<RateCounter> {
  const limits: Record<Bucket['kind'], number> = {
    apiKey: settings.apiKey,
    link: settings.link,
    address: settings.address,
  };
  if (Object.values(limits).every((limit) => limit === 0))
    return { countMore: async () => undefined, countCredential: async () => undefined };
  // @fastify/rate-limit's store interface over the shared counters.
  class SharedStore {
    incr(
      key: string,
      done: (err: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      store.hit(key, timeWindow).then(
        ({ count, ttlMs }) => done(null, { current: count, ttl: ttlMs }),
        (err: Error) => done(err),
      );
    }
    child(): SharedStore {
      return this;
    }
  }
  await app.register(rateLimit, {
    global: false,
    // `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (the IETF draft's names) and `Retry-After`.
    enableDraftSpec: true,
    store: SharedStore as never,
    // An unreachable database fails the request anyway; a limit that cannot be counted lets it through.
    skipOnError: true,
  });
  const buckets = new WeakMap<FastifyRequest, Bucket>();
  const limiter = app.rateLimit({
    keyGenerator: (request) => buckets.get(request)!.key,
    max: (request) => limits[buckets.get(request)!.kind],
    timeWindow: settings.windowMs,
    errorResponseBuilder: (_request, context) => new RateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  const bucketOf = async (request: FastifyRequest): Promise<Bucket> => {
    const address: Bucket = { kind: 'address', key: `address:${normalizeIP(request.ip)}` };
    const token = (request.params as { token?: unknown } | undefined)?.token;
    if (typeof token === 'string' && request.url.startsWith('/r/'))
      return (await options.linkExists(token)) ? { kind: 'link', key: `link:${sha256(token)}` } : address;
    const credential = credentialOf(request.headers)?.value;
    return credential && (await options.viewerOf(request)) ? credentialBucket(credential) : address;
  };

  /** Counts `hits` against a bucket: its count and the seconds left in its window; undefined when it cannot be counted. */
  const count = async (bucket: Bucket, hits: number) => {
    try {
      const { count, ttlMs } = await store.hit(bucket.key, settings.windowMs, hits);
      return { count, seconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
    } catch (err) {
      app.log.warn({ err }, 'a rate limit could not be counted');
      return undefined;
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.unlimited || request.headers.upgrade?.toLowerCase() === 'websocket') return;
    const bucket = await bucketOf(request);
    if (limits[bucket.kind] === 0) return;
    buckets.set(request, bucket);
    try {
      await limiter.call(app, request, reply);
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      return refuse(request, reply, err.retryAfterSeconds);
    }
  });

  return {
    async countMore(request, reply, more) {
      const bucket = buckets.get(request);
      const counted = bucket && more > 0 ? await count(bucket, more) : undefined;
      if (!bucket || !counted) return;
      const limit = limits[bucket.kind];
      reply.header('ratelimit-remaining', Math.max(0, limit - counted.count));
      reply.header('ratelimit-reset', counted.seconds);
      if (counted.count <= limit) return;
      reply.header('retry-after', counted.seconds);
      await refuse(request, reply, counted.seconds);
    },
    async countCredential(credential) {
      const bucket = credentialBucket(credential);
      if (limits[bucket.kind] === 0) return undefined;
      const counted = await count(bucket, 1);
      return counted && counted.count > limits[bucket.kind] ? counted.seconds : undefined;
    },
  };
}
