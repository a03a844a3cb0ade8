import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

/** A Fastify path (`/requests/:request_id`) as the document names it (`/requests/{request_id}`). */
export const documentPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Checks every answer of a documented route against the schema the OpenAPI document gives for its
 * status: a status the document does not list, or a JSON body its schema refuses, is recorded as a
 * failure (createTestApp's close throws them), so the document cannot drift from what the service says.
 */
export function checkResponses(app: FastifyInstance): { failures: string[] } {
  const failures: string[] = [];
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  let document: Document | undefined;
  const validators = new Map<string, ValidateFunction | null>();
  const validatorOf = (operation: Operation, key: string, status: number): ValidateFunction | null | undefined => {
    if (validators.has(key)) return validators.get(key);
    const response = operation.responses?.[String(status)];
    if (!response) return undefined;
    const schema = response.content?.['application/json']?.schema;
    const validate = schema ? ajv.compile(schema) : null;
    validators.set(key, validate);
    return validate;
  };
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    // A client that went away mid-request hears no answer (an aborted upload ends in a 500 nobody reads).
    if (!url || request.raw.destroyed) return payload;
    document ??= app.swagger() as unknown as Document;
    const operation = document.paths[documentPath(url)]?.[request.method.toLowerCase()];
    if (!operation) return payload;
    const name = `${request.method} ${url} ${reply.statusCode}`;
    const validate = validatorOf(operation, name, reply.statusCode);
    if (validate === undefined) {
      failures.push(`${name}: status not documented`);
      return payload;
    }
    if (
      validate === null ||
      typeof payload !== 'string' ||
      !String(reply.getHeader('content-type') ?? '').startsWith('application/json')
    )
      return payload;
    const body = JSON.parse(payload);
    if (!validate(body)) failures.push(`${name}: ${ajv.errorsText(validate.errors)} in ${payload.slice(0, 300)}`);
    return payload;
  });
  return { failures };
}
