import { Type } from '@sinclair/typebox';
import {
  AppError,
  graphqlCode,
  httpStatus,
  httpStatusOfGraphQLCode,
  type AppErrorCode,
} from '../../src/kernel/errors/app-error';
import {
  coercionError,
  found,
  fromPayload,
  RefusedInput,
  RestError,
  restErrorFromAppError,
  restErrorOf,
  userErrorsToEntries,
} from '../../src/kernel/rest/engine';
import { Body, Nullable, Text } from '../../src/kernel/rest/schemas';
import '../../src/modules';
import { requestRest } from '../../src/modules/requests/request.rest-shapes';

// The request's create body, with the parts its child modules contribute (folded by the import above).
const RequestCreateBody = requestRest().CreateBody;

// Every code a service may throw, with its two faces: a new code must be given both.
const TABLE: Record<AppErrorCode, { graphql: string; http: number }> = {
  NOT_FOUND: { graphql: 'NOT_FOUND', http: 404 },
  VALIDATION: { graphql: 'BAD_USER_INPUT', http: 422 },
  BAD_USER_INPUT: { graphql: 'BAD_USER_INPUT', http: 422 },
  UNAUTHENTICATED: { graphql: 'UNAUTHENTICATED', http: 401 },
  FORBIDDEN: { graphql: 'FORBIDDEN', http: 403 },
  CONFLICT: { graphql: 'CONFLICT', http: 409 },
  RATE_LIMITED: { graphql: 'RATE_LIMITED', http: 429 },
  GONE: { graphql: 'GONE', http: 410 },
  PAYLOAD_TOO_LARGE: { graphql: 'BAD_USER_INPUT', http: 413 },
  UNSUPPORTED_MEDIA_TYPE: { graphql: 'BAD_USER_INPUT', http: 415 },
};

describe('error code tables', () => {
  it.each(Object.entries(TABLE))('should map %s to its GraphQL code and HTTP status', (code, expected) => {
    expect({ graphql: graphqlCode(code as AppErrorCode), http: httpStatus(code as AppErrorCode) }).toEqual(expected);
  });

  it('should fail loudly on a code outside the tables', () => {
    expect(() => graphqlCode('TEAPOT' as AppErrorCode)).toThrow('unhandled case TEAPOT');
    // The status table is a Record over the codes: a missing code does not compile. A GraphQL code
    // outside it (GraphQL's own, or a masked bug) is a 500.
    expect(httpStatusOfGraphQLCode('TEAPOT')).toBe(500);
    expect(httpStatusOfGraphQLCode('GRAPHQL_VALIDATION_FAILED')).toBe(500);
  });

  it('should build the common errors with the messages clients see', () => {
    expect(AppError.notFound('Request')).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Request not found',
      userErrors: [],
    });
    expect(AppError.forbidden()).toMatchObject({ code: 'FORBIDDEN', message: 'Your role may not do this' });
    const validation = AppError.validation([
      { field: ['a'], message: 'first', code: 'INVALID' },
      { field: ['b'], message: 'second', code: 'REQUIRED' },
    ]);
    expect(validation).toMatchObject({ code: 'VALIDATION', message: 'first; second' });
    expect(validation.userErrors).toHaveLength(2);
  });
});

describe('422 mapping', () => {
  it('should turn GraphQL input paths into snake_case body locations with numeric indexes', () => {
    expect(
      userErrorsToEntries([
        { field: ['input', 'dueDate'], message: 'm1', code: 'OUT_OF_RANGE' },
        { field: ['input', 'items', '0', 'questionType'], message: 'm2', code: 'INVALID' },
        { field: ['recipients', '12', 'email'], message: 'm3', code: 'INVALID' },
      ]),
    ).toEqual([
      { loc: ['body', 'due_date'], msg: 'm1', type: 'out_of_range' },
      { loc: ['body', 'items', 0, 'question_type'], msg: 'm2', type: 'invalid' },
      { loc: ['body', 'recipients', 12, 'email'], msg: 'm3', type: 'invalid' },
    ]);
  });

  it("should quote the keys of a request's user_metadata back as sent, by the row's body schema", () => {
    expect(
      userErrorsToEntries(
        [
          { field: ['input', 'userMetadata', 'myKey'], message: 'm', code: 'INVALID' },
          { field: ['input', 'userMetadata', '7'], message: 'm', code: 'INVALID' },
          { field: ['input', 'recipients', '0', 'firstName'], message: 'm', code: 'INVALID' },
        ],
        RequestCreateBody,
      ).map((entry) => entry.loc),
    ).toEqual([
      ['body', 'user_metadata', 'myKey'],
      ['body', 'user_metadata', '7'],
      ['body', 'recipients', 0, 'first_name'],
    ]);
  });

  describe('walking the body schema', () => {
    const Value = Text(10);
    const Form = Body({
      fields: Nullable(Type.Record(Type.String(), Body({ default_value: Nullable(Value), read_only: Type.Boolean() }))),
    });
    const Schema = Body({
      // A schema-valued additionalProperties, as user_metadata declares it, nullable as a type list.
      user_metadata: Nullable(Type.Unsafe({ type: 'object', additionalProperties: Value })),
      // A record of records (TypeBox's patternProperties), nullable as a union.
      groups: Type.Union([Type.Record(Type.String(), Type.Record(Type.String(), Value)), Type.Null()]),
      items: Nullable(Type.Array(Body({ form: Nullable(Form), tags: Type.Array(Value) }))),
      // A list of objects whose `fields` is a list, not a map.
      fields: Type.Array(Body({ placeholder: Value })),
      // A union of a string and an object, as a collaborator is.
      owner: Type.Union([Value, Body({ firstName: Value })]),
    });
    const locs = (...paths: string[][]) =>
      userErrorsToEntries(
        paths.map((field) => ({ field, message: 'm', code: 'INVALID' })),
        Schema,
      ).map((e) => e.loc);

    it('should quote keys that look like indexes or hold capitals, and nothing after the map', () => {
      expect(
        locs(
          ['input', 'userMetadata', '0'],
          ['input', 'userMetadata', 'CamelKey'],
          ['input', 'userMetadata', '__proto__'],
          ['input', 'userMetadata'],
        ),
      ).toEqual([
        ['body', 'user_metadata', '0'],
        ['body', 'user_metadata', 'CamelKey'],
        ['body', 'user_metadata', '__proto__'],
        ['body', 'user_metadata'],
      ]);
    });

    it('should quote each level of nested maps', () => {
      expect(locs(['input', 'groups', '12', 'someKey'], ['input', 'groups', 'A', '3'])).toEqual([
        ['body', 'groups', '12', 'someKey'],
        ['body', 'groups', 'A', '3'],
      ]);
    });

    it('should read indexes of lists and names of objects around a map, inside a list of objects', () => {
      expect(
        locs(
          ['input', 'items', '3', 'form', 'fields', '2', 'defaultValue'],
          ['input', 'items', '3', 'tags', '1'],
          ['input', 'fields', '2', 'placeholder'],
        ),
      ).toEqual([
        ['body', 'items', 3, 'form', 'fields', '2', 'default_value'],
        ['body', 'items', 3, 'tags', 1],
        ['body', 'fields', 2, 'placeholder'],
      ]);
    });

    it("should follow the object branch of a union, naming its field in the body's own spelling", () => {
      expect(locs(['input', 'owner', 'firstName'])).toEqual([['body', 'owner', 'firstName']]);
    });

    it('should read names and indexes where the schema says nothing (a field GraphQL names otherwise, or no schema)', () => {
      expect(locs(['input', 'itemKind', '0', 'userMetadata', 'myKey'])).toEqual([
        ['body', 'item_kind', 0, 'user_metadata', 'my_key'],
      ]);
      expect(
        userErrorsToEntries([{ field: ['input', 'userMetadata', 'myKey'], message: 'm', code: 'INVALID' }])[0].loc,
      ).toEqual(['body', 'user_metadata', 'my_key']);
    });
  });

  it('should place an error about the input as a whole on the body', () => {
    expect(userErrorsToEntries([{ field: null, message: 'whole', code: 'INVALID' }])).toEqual([
      { loc: ['body'], msg: 'whole', type: 'invalid' },
    ]);
  });

  it('should answer service errors with their REST status and detail', () => {
    const validation = restErrorFromAppError(
      AppError.validation([{ field: ['name'], message: 'Field required', code: 'REQUIRED' }]),
    );
    expect(validation).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'required' }],
    });
    expect(restErrorFromAppError(new AppError('BAD_USER_INPUT', 'Body is not JSON'))).toMatchObject({
      status: 422,
      detail: [{ loc: ['body'], msg: 'Body is not JSON', type: 'value_error' }],
    });
    expect(restErrorFromAppError(AppError.notFound('Item'))).toMatchObject({
      status: 404,
      detail: 'Item not found',
      message: 'Item not found',
    });
    expect(restErrorFromAppError(AppError.forbidden())).toMatchObject({
      status: 403,
      detail: 'Your role may not do this',
    });
    expect(restErrorFromAppError(new AppError('PAYLOAD_TOO_LARGE', 'File is larger than 10 bytes'))).toMatchObject({
      status: 413,
      detail: 'File is larger than 10 bytes',
    });
    expect(restErrorFromAppError(new AppError('UNSUPPORTED_MEDIA_TYPE', 'not a PDF'))).toMatchObject({ status: 415 });
  });

  it('should unwrap payloads and lookups, or fail in REST terms once the body schema is known', () => {
    expect(fromPayload({ userErrors: [], request: { id: 'r' } }, 'request')).toEqual({ id: 'r' });
    const refused = (() => {
      try {
        fromPayload(
          { userErrors: [{ field: ['input', 'fields'], message: 'bad', code: 'INVALID' }], contract: null },
          'contract',
          400,
        );
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RefusedInput);
    expect(restErrorOf(refused, undefined)).toMatchObject({
      status: 400,
      detail: [{ loc: ['body', 'fields'], msg: 'bad', type: 'invalid' }],
      message: 'Validation error',
    });
    const metadata = new RefusedInput(422, [
      { field: ['input', 'userMetadata', 'Key'], message: 'bad', code: 'TOO_LONG' },
    ]);
    expect(restErrorOf(metadata, RequestCreateBody)).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'user_metadata', 'Key'], msg: 'bad', type: 'too_long' }],
    });
    const service = AppError.validation([{ field: ['userMetadata', '1'], message: 'bad', code: 'INVALID' }]);
    expect(restErrorOf(service, RequestCreateBody)).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'user_metadata', '1'] }],
    });
    expect(restErrorOf(new Error('a bug'), RequestCreateBody)).toBeUndefined();
    expect(found(0, 'Count')).toBe(0);
  });

  it('should read a variable GraphQL refused as a user error on the field, in the REST layer words', () => {
    expect(coercionError('Variable "$endpoint" got invalid value "ftp://x"; Expected type URL.')).toEqual({
      field: ['endpoint'],
      message: 'Input should be an absolute http or https URL',
      code: 'VALUE_ERROR',
    });
    expect(
      coercionError(
        'Variable "$input" got invalid value "ftp://x" at "input.endpoint"; URL must be an absolute http or https URL, got "ftp://x"',
      ),
    ).toEqual({
      field: ['input', 'endpoint'],
      message: 'URL must be an absolute http or https URL, got "ftp://x"',
      code: 'VALUE_ERROR',
    });
    expect(
      coercionError('Variable "$input" got invalid value "soon" at "input.items.0.dueDate"; Expected type "DateTime".'),
    ).toMatchObject({
      field: ['input', 'items', '0', 'dueDate'],
      message: 'Input should be a valid datetime (ISO 8601)',
    });
    expect(coercionError('Cannot query field "x"')).toBeUndefined();
    const refusal = Object.assign(new Error('validation'), {
      code: 'MER_ERR_GQL_VALIDATION',
      errors: [{ message: 'Variable "$input" got invalid value "x" at "input.dueDate"; Expected type DateTime.' }],
    });
    expect(restErrorOf(refusal, RequestCreateBody)).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'due_date'], msg: 'Input should be a valid datetime (ISO 8601)', type: 'value_error' }],
    });
    expect(() => found(null, 'Template')).toThrow('Template not found');
    expect(() => found(undefined, 'Team')).toThrow(RestError);
  });
});
