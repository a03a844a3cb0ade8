import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error';
import { RestError, restErrorFromAppError, userErrorsToEntries } from '../rest/engine';
import { toValidationEntries, type ValidationEntry } from '../rest/validation';
import { MAX_JSON_DEPTH } from '../limits';

/**
 * Walks a parsed body without recursion: refuses nesting beyond MAX_JSON_DEPTH and drops "__proto__"
 * keys, which would become an object's prototype once the object is assigned somewhere.
 */
function sanitiseJson(root: unknown): void {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      // Valid JSON, so not a 400 (API-DECISIONS keeps 400 for bodies that are not JSON).
      throw new RestError(422, [{ loc: ['body'], msg: `Body nests deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' }]);
    }
    if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, '__proto__')) delete (value as Record<string, unknown>).__proto__;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}

/**
 * Every failure leaves as a REST error body: 4xx with what to fix, or a masked 500 whose request id
 * finds the logged cause. (GraphQL formats its own errors; see kernel/graphql/plugin.ts.)
 */
export function registerErrorHandling(app: FastifyInstance, options: { bodyLimit: number }): void {
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ detail: 'Not found' });
  });

  app.setErrorHandler((error: FastifyError & { errors?: Array<{ message: string }> }, request, reply) => {
    let rest: RestError | undefined;
    if (error instanceof RestError) rest = error;
    else if (error instanceof AppError) rest = restErrorFromAppError(error);
    else if (error.validation) {
      const part = error.validationContext ?? 'body';
      rest = new RestError(part === 'body' ? (request.routeOptions.config?.badBodyStatus ?? 422) : 422, toValidationEntries(error.validation as never, part));
    }
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') rest = new RestError(413, `Request body is larger than ${options.bodyLimit} bytes`);
    else if (error.code === 'MER_ERR_GQL_VALIDATION' && Array.isArray(error.errors)) {
      // Variables a REST row built that GraphQL still refused (a value its scalar does not take):
      // graphql-js names the place as `at "input.endpoint"`, which becomes the loc.
      const entries: ValidationEntry[] = error.errors.map((e) => {
        const [, path] = /at "([^"]+)"/.exec(e.message) ?? [];
        const [, reason] = /; (.*)$/.exec(e.message) ?? [];
        return userErrorsToEntries([{ field: path ? path.split('.') : [], message: reason ?? e.message, code: 'VALUE_ERROR' }])[0];
      });
      rest = new RestError(422, entries);
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      rest = new RestError(error.statusCode, error.message);
    }
    // An upload refused part-way leaves the rest of its body unread on the connection: close it after
    // this answer rather than read (or misread as the next request) what the client still sends.
    if (request.raw.complete === false) reply.header('connection', 'close');
    if (rest) {
      reply.code(rest.status).send({ detail: rest.detail });
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    reply.code(500).send({ detail: 'Internal server error', request_id: request.id });
  });

  // Empty bodies are no body (clients often send Content-Type: application/json on a bare POST);
  // anything else must parse as JSON whatever its declared type, since legacy clients mislabel it.
  const parseJson = (body: string) => {
    if (/^[ \t\n\r]*$/.test(body)) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      throw new RestError(400, `Body is not valid JSON: ${(err as Error).message}`);
    }
    sanitiseJson(value);
    return value;
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parser = (_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseJson(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, parser);
  app.addContentTypeParser('*', { parseAs: 'string' }, parser);
}
