import { createHash } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimitSettings } from '../../config/config';
import { extractApiKey } from './auth';
import type { EdgeStore } from './edge-store';
import { replyRefusal } from './refusal';

// Requests per window, counted in PostgreSQL (edge-store.ts) so that every instance on one database
// counts against the same limit. Each request counts against one bucket: its recipient link (a path
// under /r/{token}), else its credential (an API key, or a recipient session's token), else its client
// address. The check runs before authentication: a limited key is refused without a key lookup.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Left out of rate limits (health checks a load balancer repeats). */
    unlimited?: boolean;
  }
}

/** The bucket a request counts against, with its limit's name in the settings. */
type Bucket = { kind: 'apiKey' | 'link' | 'address'; key: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function bucketOf(request: FastifyRequest): Bucket {
  const token = (request.params as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string' && request.url.startsWith('/r/')) return { kind: 'link', key: `link:${sha256(token)}` };
  const credential = extractApiKey(request.headers);
  // A recipient session counts as its link does; an API key has a limit of its own.
  if (credential)
    return credential.startsWith('grs_')
      ? { kind: 'link', key: `session:${sha256(credential)}` }
      : { kind: 'apiKey', key: `key:${sha256(credential)}` };
  return { kind: 'address', key: `address:${normalizeIP(request.ip)}` };
}

/** What the limiter throws once a bucket is over its limit (answered by the hook below). */
class RateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Rate limit exceeded, retry in ${retryAfterSeconds} s`);
  }
}

export async function registerRateLimits(
  app: FastifyInstance,
  store: EdgeStore,
  settings: RateLimitSettings,
): Promise<void> {
  const limits: Record<Bucket['kind'], number> = {
    apiKey: settings.apiKey,
    link: settings.link,
    address: settings.address,
  };
  if (Object.values(limits).every((limit) => limit === 0)) return;
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
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.unlimited || request.headers.upgrade?.toLowerCase() === 'websocket') return;
    const bucket = bucketOf(request);
    if (limits[bucket.kind] === 0) return;
    buckets.set(request, bucket);
    try {
      await limiter.call(app, request, reply);
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      return replyRefusal(request, reply, {
        status: 429,
        message: err.message,
        extensions: { code: 'RATE_LIMITED', retryAfter: err.retryAfterSeconds },
      });
    }
  });
}
