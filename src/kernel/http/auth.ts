import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Viewer } from '../graphql/context';
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
export function extractApiKey(headers: FastifyRequest['headers']): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const apiKey = headers['x-api-key'];
  return (Array.isArray(apiKey) ? apiKey[0] : apiKey) || undefined;
}

function replyUnauthenticated(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('WWW-Authenticate', 'Bearer');
  return replyRefusal(request, reply, {
    status: 401,
    message: 'Not authenticated',
    extensions: { code: 'UNAUTHENTICATED' },
  });
}

/**
 * The caller a request's credential names (null: none sent, or none valid), looked up once per
 * request: the rate limit's bucket and authentication both ask.
 */
export function viewerLookup(
  resolveViewer: (key: string, request: FastifyRequest) => Promise<Viewer | null>,
): (request: FastifyRequest) => Promise<Viewer | null> {
  const looked = new WeakMap<FastifyRequest, Promise<Viewer | null>>();
  return (request) => {
    let viewer = looked.get(request);
    if (!viewer) {
      const key = extractApiKey(request.headers);
      viewer = key ? resolveViewer(key, request) : Promise.resolve(null);
      looked.set(request, viewer);
    }
    return viewer;
  };
}

export function registerAuth(
  app: FastifyInstance,
  viewerOf: (request: FastifyRequest) => Promise<Viewer | null>,
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
    request.viewer = viewer;
  });
}
