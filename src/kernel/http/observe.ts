import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** One answered HTTP request, as the log and the metrics see it: never its URL (a recipient link holds a token). */
export type ObservedRequest = {
  method: string;
  /** The route's pattern (`/r/:token`, `/requests/:id`); `(unmatched)` for a 404 without a route. */
  route: string;
  /** GraphQL over HTTP: the operations' names (`(anonymous)` without one); none for other routes. */
  operations?: string[];
  status: number;
  durationMs: number;
  organizationId?: string;
};

const NAMED_OPERATION = /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

/** The operation a GraphQL request names (`operationName`, else the first named operation of its document). */
function operationName(payload: unknown): string {
  const { operationName: named, query } = (payload ?? {}) as { operationName?: unknown; query?: unknown };
  if (typeof named === 'string' && named) return named;
  return (typeof query === 'string' && NAMED_OPERATION.exec(query)?.[1]) || '(anonymous)';
}

function operationsOf(request: FastifyRequest): string[] {
  const payload = request.method === 'GET' ? request.query : request.body;
  return Array.isArray(payload) ? payload.map(operationName) : [operationName(payload)];
}

/**
 * Calls `observer` once for every answered request, after its response went out, and logs it: one
 * line per request (Fastify's own two lines are off, as they carry the URL).
 */
export function observeRequests(app: FastifyInstance, observer: (observed: ObservedRequest) => void): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    const observed: ObservedRequest = {
      method: request.method,
      route,
      operations: route === '/graphql' ? operationsOf(request) : undefined,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      organizationId: request.viewer?.organizationId,
    };
    observer(observed);
    const { operations, ...line } = observed;
    request.log.info({ ...line, ...(operations && { operations }) }, 'request');
  });
}

/**
 * Fastify's own log lines, its per-request ones off (they carry the URL; observeRequests logs one without it).
 * An answer its schema cannot serialize is a bug however requests are logged: Fastify answers a bare 500 for it,
 * so it is logged here, with why and for which route and status.
 */
export class ServiceLogController extends LogController {
  constructor() {
    super({ disableRequestLogging: true });
  }

  override serializerError(
    error: Error,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata: { statusCode: number },
  ): void {
    reply.log.error(
      { err: error, route: request.routeOptions.url, status: metadata.statusCode },
      'an answer does not fit its schema',
    );
  }
}
