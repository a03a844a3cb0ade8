import type { TSchema } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { RestError, restErrorOf } from '../rest/engine';
import { toValidationEntries } from '../rest/validation';
import { MAX_JSON_DEPTH } from '../limits';
import { AppError } from '../errors/app-error';
import { MissingObjectError } from '../storage/storage';

/**
 * Walks a parsed body and refuses nesting beyond MAX_JSON_DEPTH, so the walk recurses that deep at
 * most (a stack of pairs, its earlier walk, showed among a create's allocations). A "__proto__" key
 * stays: JSON.parse makes it an own property, with no effect on any prototype, and it is the client's
 * key like any other (a metadata key is stored or refused, an unknown field dropped by the schema).
 * What copies a client's keys must define them (spread, Object.fromEntries), never assign them.
 */
function checkDepth(value: unknown, depth = 1): void {
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_JSON_DEPTH) {
    // Valid JSON, so not a 400 (API-DECISIONS keeps 400 for bodies that are not JSON).
    throw new RestError(422, [
      { loc: ['body'], msg: `Body nests deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' },
    ]);
  }
  if (Array.isArray(value)) {
    for (const child of value) checkDepth(child, depth + 1);
    return;
  }
  for (const key in value) checkDepth((value as Record<string, unknown>)[key], depth + 1);
}

/**
 * A body as JSON, whatever its declared type, since legacy clients mislabel it (`curl -d` sends JSON as a form):
 * empty is no body (clients often send Content-Type: application/json on a bare POST); a 400 when it does not
 * parse, a 422 when it nests too deep.
 */
export function parseJsonBody(body: string): unknown {
  if (/^[ \t\n\r]*$/.test(body)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new RestError(400, `Body is not valid JSON: ${(err as Error).message}`);
  }
  checkDepth(value);
  return value;
}

/**
 * A request refused before its route ran (a body over the limit, not JSON or nested too deep; a
 * request GraphQL's route does not take), in REST terms; undefined for a bug. GraphQL answers the same
 * refusals in its own shape (kernel/graphql/plugin.ts).
 */
export function requestRefusal(error: unknown, bodyLimit: number): RestError | undefined {
  if (error instanceof RestError) return error;
  const { code, statusCode, message } = error as Partial<FastifyError>;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new RestError(413, `Request body is larger than ${bodyLimit} bytes`);
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return new RestError(statusCode, message ?? 'Bad request');
  return undefined;
}

/** A refusal of the HTTP layer (a row's schemas, the body) in REST terms; undefined for a bug. */
function httpRestError(error: FastifyError, request: FastifyRequest, bodyLimit: number): RestError | undefined {
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    return new RestError(
      part === 'body' ? (request.routeOptions.config?.badBodyStatus ?? 422) : 422,
      toValidationEntries(error.validation as never, part),
    );
  }
  return requestRefusal(error, bodyLimit);
}

/**
 * A refusal as its route answers it: a row whose bad bodies are 400s declares its 400 as entries, so a body that
 * is not JSON is one entry there, not the `detail` string of other routes (which its schema could not serialize).
 */
function inRowTerms(rest: RestError | undefined, request: FastifyRequest): RestError | undefined {
  if (rest?.status !== 400 || typeof rest.detail !== 'string' || request.routeOptions.config?.badBodyStatus !== 400)
    return rest;
  return new RestError(400, [{ loc: ['body'], msg: rest.detail, type: 'json_invalid' }]);
}

/**
 * Every failure leaves as a REST error body: 4xx with what to fix, or a masked 500 whose request id
 * finds the logged cause. (GraphQL formats its own errors; see kernel/graphql/plugin.ts.)
 */
export function registerErrorHandling(app: FastifyInstance, options: { bodyLimit: number }): void {
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ detail: 'Not found' });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const rest = inRowTerms(
      restErrorOf(error, request.routeOptions.schema?.body as TSchema | undefined) ??
        httpRestError(error, request, options.bodyLimit),
      request,
    );
    // Answered as gone, but the service lost it (or does not reach it): someone must look.
    if (error instanceof MissingObjectError)
      request.log.error({ err: error, key: error.key }, 'a stored file is missing');
    // An upload refused part-way leaves the rest of its body unread on the connection: close it after
    // this answer rather than read (or misread as the next request) what the client still sends.
    if (request.raw.complete === false) reply.header('connection', 'close');
    // A row's document that failed inside GraphQL comes back as a RestError of 500: masked like any
    // other bug, with the request id that finds it in the log.
    if (rest && rest.status < 500) {
      if (error instanceof AppError && error.retryAfterSeconds !== undefined)
        reply.header('Retry-After', String(error.retryAfterSeconds));
      reply.code(rest.status).send({ detail: rest.detail });
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    reply.code(500).send({ detail: 'Internal server error', request_id: request.id });
  });

  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parser = (_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, parser);
  app.addContentTypeParser('*', { parseAs: 'string' }, parser);
}
