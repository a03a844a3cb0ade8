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

export function registerAuth(
  app: FastifyInstance,
  resolveViewer: (key: string, request: FastifyRequest) => Promise<Viewer | null>,
): void {
  app.decorateRequest('viewer', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public) return;
    // GraphiQL's page and assets carry no key; the queries it sends do.
    if (request.url.startsWith('/graphiql')) return;
    // A WebSocket upgrade authenticates in its `connection_init` message instead.
    if (request.headers.upgrade?.toLowerCase() === 'websocket') return;
    const key = extractApiKey(request.headers);
    const viewer = key ? await resolveViewer(key, request) : null;
    if (!viewer) return replyUnauthenticated(request, reply);
    request.viewer = viewer;
  });
}
