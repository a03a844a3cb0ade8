import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error';
import { RestError, restErrorFromAppError } from '../rest/engine';
import { toValidationEntries, type ValidationEntry } from '../rest/validation';

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
    else if (error.validation) rest = new RestError(422, toValidationEntries(error.validation as never, error.validationContext ?? 'body'));
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') rest = new RestError(413, `Request body is larger than ${options.bodyLimit} bytes`);
    else if (error.code === 'MER_ERR_GQL_VALIDATION' && Array.isArray(error.errors)) {
      // Variables a REST row built that GraphQL still refused (a value beyond what its type holds).
      const entries: ValidationEntry[] = error.errors.map((e) => ({ loc: ['body'], msg: e.message, type: 'value_error' }));
      rest = new RestError(422, entries);
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      rest = new RestError(error.statusCode, error.message);
    }
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
    if (body.trim() === '') return undefined;
    try {
      // A "__proto__" key would become an object's prototype once spread or assigned.
      return JSON.parse(body, (key, value) => (key === '__proto__' ? undefined : value));
    } catch (err) {
      throw new RestError(400, `Body is not valid JSON: ${(err as Error).message}`);
    }
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
