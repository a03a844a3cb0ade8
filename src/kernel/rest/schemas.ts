import { Type, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from '../limits';

// Building blocks of the REST rows' JSON Schemas. The same schemas validate requests (422 bodies),
// serialise responses, and will generate the OpenAPI document.

export const Uuid = (description = 'a UUID') => Type.String({ format: 'uuid', description });

/** Text PostgreSQL stores as given: at most `max` characters, no NUL, no unpaired surrogate. */
export const Text = (max: number, options: { minLength?: number; description?: string } = {}) =>
  Type.String({
    maxLength: max,
    // Ajv matches in unicode mode, where a paired surrogate is one character outside this class.
    pattern: '^[^\\u0000\\ud800-\\udfff]*$',
    description: options.description ?? 'text without NUL characters or unpaired surrogates',
    ...options,
  });

export const DateTime = (description = 'an ISO 8601 date-time') => Type.String({ format: 'date-time', description });

/** `schema` or null, as one JSON Schema `type` list so errors stay about the value, not a union. */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type, enum: values, ...rest } = schema as TSchema & { type?: string; enum?: unknown[] };
  if (!type) return Type.Unsafe<T['static'] | null>({ anyOf: [schema, { type: 'null' }] });
  return Type.Unsafe<T['static'] | null>({
    ...rest,
    type: [type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
};

export const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/**
 * A request body: every property optional but those named in `required`; unknown properties are
 * dropped before validation reaches the handler (legacy clients send extras).
 */
export const Body = <P extends TProperties, R extends keyof P = never>(properties: P, required: readonly R[] = []) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => [
        key,
        required.includes(key as R) ? schema : Type.Optional(schema),
      ]),
    ) as {
      [K in keyof P]: K extends R ? P[K] : TOptional<P[K]>;
    },
    { additionalProperties: false },
  ) as TObject<{ [K in keyof P]: K extends R ? P[K] : TOptional<P[K]> }>;

export const DetailBody = Type.Object({ detail: Type.String() }, { description: 'what went wrong' });

export const ValidationBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  },
  { description: 'one entry per problem; loc starts with body, query, path or header' },
);

export const NoContent = Type.Null({ description: 'no body' });

/** A query string: every parameter optional (defaults fill the gaps); unknown parameters ignored. */
export const Query = <P extends TProperties>(properties: P) => Type.Partial(Type.Object(properties));

/** `limit` and `order` (by creation date) of a REST list. */
export const listQuery = (defaultOrder: 'asc' | 'desc') =>
  Query({
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `page size, 1 to ${MAX_PAGE_SIZE}`,
    }),
    order: Type.Unsafe<'asc' | 'desc'>({
      type: 'string',
      enum: ['asc', 'desc'],
      default: defaultOrder,
      description: `by creation date, ${defaultOrder} by default`,
    }),
  });

/** The standard error responses of a row, merged with its success responses. */
export const withErrors = (responses: Record<number, TSchema>, errors: number[] = [404, 422]) => ({
  ...responses,
  ...Object.fromEntries(errors.map((status) => [status, status === 422 ? ValidationBody : DetailBody])),
});
