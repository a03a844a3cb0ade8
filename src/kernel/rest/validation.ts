import Ajv, { type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { parseDateTime } from '../graphql/scalars';

/** One entry of a 422 body, in the shape FastAPI clients already parse. */
export type ValidationEntry = { loc: (string | number)[]; msg: string; type: string };

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, ...options });
  addFormats(ajv, ['uuid', 'email', 'uri']);
  // The same parser the GraphQL DateTime scalar uses, so both doors accept the same dates.
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseDateTime(value) !== null });
  return ajv;
}

// Bodies are not coerced: "true" is not a boolean and "3" is not an integer. Unknown fields are
// dropped (legacy clients send extras) wherever a schema closes its properties.
const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: true, useDefaults: false });
// Query strings and path parameters arrive as text, so they are coerced.
const textAjv = createAjv({ coerceTypes: 'array', removeAdditional: true, useDefaults: true });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);

const PART_LOC: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function describe(error: ErrorObject): { msg: string; type: string } {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' };
    case 'type': {
      // A nullable field's type list reads as its main type: null is rarely what the client meant.
      const expected = Array.isArray(p.type)
        ? String(p.type.find((t: string) => t !== 'null') ?? p.type[0])
        : String(p.type);
      const names: Record<string, string> = {
        string: 'a valid string',
        integer: 'a valid integer',
        number: 'a valid number',
        boolean: 'a valid boolean',
        object: 'a valid dictionary or object',
        array: 'a valid list',
        null: 'null',
      };
      return {
        msg: `Input should be ${names[expected] ?? expected}`,
        type: `${expected === 'object' ? 'dict' : expected === 'array' ? 'list' : expected === 'integer' ? 'int' : expected === 'boolean' ? 'bool' : expected}_type`,
      };
    }
    case 'enum':
      // A nullable enum's null is no value to offer (the type list says null is taken).
      return {
        msg: `Input should be ${(p.allowedValues as unknown[])
          .filter((v) => v !== null)
          .map((v) => `'${String(v)}'`)
          .join(', ')}`,
        type: 'enum',
      };
    case 'const':
      return { msg: `Input should be '${String(p.allowedValue)}'`, type: 'literal_error' };
    case 'maxLength':
      return { msg: `String should have at most ${p.limit} characters`, type: 'string_too_long' };
    case 'minLength':
      return {
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case 'maximum':
      return { msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal' };
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal' };
    case 'maxItems':
      return { msg: `List should have at most ${p.limit} items`, type: 'too_long' };
    case 'minItems':
      return { msg: `List should have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`, type: 'too_short' };
    case 'maxProperties':
      return { msg: `Object should have at most ${p.limit} keys`, type: 'too_long' };
    case 'pattern':
      return {
        msg: error.parentSchema?.description
          ? `Input should be ${error.parentSchema.description}`
          : `String should match pattern '${p.pattern}'`,
        type: 'string_pattern_mismatch',
      };
    case 'format': {
      const formats: Record<string, [string, string]> = {
        'date-time': ['Input should be a valid datetime (ISO 8601)', 'datetime_parsing'],
        uuid: ['Input should be a valid UUID', 'uuid_parsing'],
        email: ['Input should be a valid email address', 'value_error'],
        uri: ['Input should be a valid URL', 'url_parsing'],
      };
      const [msg, type] = formats[p.format as string] ?? [`Input should match format ${p.format}`, 'value_error'];
      return { msg, type };
    }
    case 'additionalProperties':
      return { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'anyOf':
    case 'oneOf':
      return {
        msg: error.parentSchema?.description
          ? `Input should be ${error.parentSchema.description}`
          : 'Input matches none of the allowed shapes',
        type: 'union_error',
      };
    default:
      return { msg: error.message ?? 'Invalid input', type: error.keyword };
  }
}

function pointerToLoc(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** Turns Ajv errors into 422 entries: one per problem, branch noise of unions folded into one. */
export function toValidationEntries(errors: ErrorObject[], httpPart: string): ValidationEntry[] {
  const part = PART_LOC[httpPart] ?? httpPart;
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath);
  const entries: ValidationEntry[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (
      error.keyword !== 'anyOf' &&
      error.keyword !== 'oneOf' &&
      unions.some((u) => error.schemaPath.startsWith(`${u}/`))
    )
      continue;
    const loc = [part, ...pointerToLoc(error.instancePath)];
    if (error.keyword === 'required') loc.push((error.params as { missingProperty: string }).missingProperty);
    const entry = { loc, ...describe(error) };
    // One value failing several keywords (null for a string enum: type and enum) is one problem.
    const key = JSON.stringify(loc);
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(entry);
  }
  return entries;
}
