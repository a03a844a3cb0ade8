import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Viewer } from '../graphql/context';
import { readCookie, SESSION_COOKIE, USER_SESSION_PREFIX } from './cookies';
import { replyRefusal } from './refusal';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every route that is not public. */
    viewer?: Viewer;
  }
  interface FastifyContextConfig {
    /** Reachable without an API key (health checks). */
    public?: boolean;
  }
}

/** `Authorization: Bearer <key>`, or `X-API-Key: <key>` for legacy clients. */
export function extractApiKey(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const apiKey = headers['x-api-key'];
  return (Array.isArray(apiKey) ? apiKey[0] : apiKey) || undefined;
}

/**
 * What a request authenticates with: a key in a header (an API key, or a recipient's session token), else a
 * signed-in user's session cookie. A header wins: a client that sends one means it.
 */
export type Credential = { kind: 'key' | 'session'; value: string };

export function credentialOf(headers: IncomingHttpHeaders): Credential | undefined {
  const key = extractApiKey(headers);
  if (key) return { kind: 'key', value: key };
  const session = readCookie(headers, SESSION_COOKIE, USER_SESSION_PREFIX);
  return session ? { kind: 'session', value: session } : undefined;
}

/** Methods that change nothing: a cookie-authenticated call by one of them needs no proof of its origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether `origin` (a request's `Origin` header) is the service's own: that of its public URL, or that of the
 * address the request came to. Browsers send `Origin` with every request that may change something and with
 * every WebSocket handshake, and no page can forge it; a page of another site shows its own.
 */
export function isOwnOrigin(
  origin: string | string[] | undefined,
  own: { publicUrl: string; protocol: string; host: string | undefined },
): boolean {
  if (typeof origin !== 'string' || origin === 'null') return false;
  if (origin === new URL(own.publicUrl).origin) return true;
  return own.host !== undefined && origin === `${own.protocol}://${own.host}`;
}

export const CROSS_SITE_MESSAGE = 'Cross-site request refused';

/**
 * The referrer policy of a page whose forms or script post to Gather with the session cookie: under `no-referrer`
 * a browser sends `Origin: null` with those posts, which `isOwnOrigin` refuses; `same-origin` keeps the Origin and
 * still sends no address (a sign-in token in it, say) to another site.
 */
export const SAME_ORIGIN_REFERRER = 'same-origin';

function replyUnauthenticated(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('WWW-Authenticate', 'Bearer');
  return replyRefusal(request, reply, {
    status: 401,
    message: 'Not authenticated',
    extensions: { code: 'UNAUTHENTICATED' },
  });
}

/** The 403 of a cookie-authenticated call that could have come from another site's page. */
export function replyCrossSite(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return replyRefusal(request, reply, {
    status: 403,
    message: CROSS_SITE_MESSAGE,
    extensions: { code: 'FORBIDDEN' },
  });
}

/**
 * Whether a request that carries the session cookie may act with it: a safe method, or an `Origin` of the service's
 * own (the cookie is SameSite=Strict already; this holds where a browser would still send it).
 */
export function sameOriginOrSafe(request: FastifyRequest, publicUrl: string): boolean {
  return (
    SAFE_METHODS.has(request.method) ||
    isOwnOrigin(request.headers.origin, { publicUrl, protocol: request.protocol, host: request.host })
  );
}

/**
 * The caller a request's credential names (null: none sent, or none valid), looked up once per
 * request: the rate limit's bucket and authentication both ask.
 */
export function viewerLookup(
  resolveViewer: (credential: Credential, request: FastifyRequest) => Promise<Viewer | null>,
): (request: FastifyRequest) => Promise<Viewer | null> {
  const looked = new WeakMap<FastifyRequest, Promise<Viewer | null>>();
  return (request) => {
    let viewer = looked.get(request);
    if (!viewer) {
      const credential = credentialOf(request.headers);
      viewer = credential ? resolveViewer(credential, request) : Promise.resolve(null);
      looked.set(request, viewer);
    }
    return viewer;
  };
}

export function registerAuth(
  app: FastifyInstance,
  viewerOf: (request: FastifyRequest) => Promise<Viewer | null>,
  options: { publicUrl: string },
): void {
  app.decorateRequest('viewer', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public) return;
    // GraphiQL's page and assets carry no key; the queries it sends do.
    if (request.url.startsWith('/graphiql')) return;
    // A WebSocket upgrade authenticates in its `connection_init` message instead.
    if (request.headers.upgrade?.toLowerCase() === 'websocket') return;
    const viewer = await viewerOf(request);
    if (!viewer) return replyUnauthenticated(request, reply);
    if (credentialOf(request.headers)?.kind === 'session' && !sameOriginOrSafe(request, options.publicUrl))
      return replyCrossSite(request, reply);
    request.viewer = viewer;
  });
}
