import { AppError, graphqlCode, httpStatus, httpStatusOfGraphQLCode, type AppErrorCode } from '../../src/kernel/errors/app-error';
import { found, fromPayload, RestError, restErrorFromAppError, userErrorsToEntries } from '../../src/kernel/rest/engine';

// Every code a service may throw, with its two faces: a new code must be given both.
const TABLE: Record<AppErrorCode, { graphql: string; http: number }> = {
  NOT_FOUND: { graphql: 'NOT_FOUND', http: 404 },
  VALIDATION: { graphql: 'BAD_USER_INPUT', http: 422 },
  BAD_USER_INPUT: { graphql: 'BAD_USER_INPUT', http: 422 },
  UNAUTHENTICATED: { graphql: 'UNAUTHENTICATED', http: 401 },
  FORBIDDEN: { graphql: 'FORBIDDEN', http: 403 },
  CONFLICT: { graphql: 'CONFLICT', http: 409 },
  RATE_LIMITED: { graphql: 'RATE_LIMITED', http: 429 },
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
    expect(AppError.notFound('Request')).toMatchObject({ code: 'NOT_FOUND', message: 'Request not found', userErrors: [] });
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

  it("should quote the client's own keys back as sent: metadata keys and a form's field names", () => {
    expect(
      userErrorsToEntries([
        { field: ['input', 'userMetadata', 'myKey'], message: 'm', code: 'INVALID' },
        { field: ['input', 'userMetadata', '7'], message: 'm', code: 'INVALID' },
        { field: ['input', 'items', '1', 'form', 'fields', 'firstName'], message: 'm', code: 'INVALID' },
        // A contract's fields are a list: its index is a number and its names are ours.
        { field: ['input', 'fields', '2', 'placeholder'], message: 'm', code: 'TOO_LONG' },
      ]).map((entry) => entry.loc),
    ).toEqual([
      ['body', 'user_metadata', 'myKey'],
      ['body', 'user_metadata', '7'],
      ['body', 'items', 1, 'form', 'fields', 'firstName'],
      ['body', 'fields', 2, 'placeholder'],
    ]);
  });

  it('should place an error about the input as a whole on the body', () => {
    expect(userErrorsToEntries([{ field: null, message: 'whole', code: 'INVALID' }])).toEqual([{ loc: ['body'], msg: 'whole', type: 'invalid' }]);
  });

  it('should answer service errors with their REST status and detail', () => {
    const validation = restErrorFromAppError(AppError.validation([{ field: ['name'], message: 'Field required', code: 'REQUIRED' }]));
    expect(validation).toMatchObject({ status: 422, detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'required' }] });
    expect(restErrorFromAppError(new AppError('BAD_USER_INPUT', 'Body is not JSON'))).toMatchObject({ status: 422, detail: [{ loc: ['body'], msg: 'Body is not JSON', type: 'value_error' }] });
    expect(restErrorFromAppError(AppError.notFound('Item'))).toMatchObject({ status: 404, detail: 'Item not found', message: 'Item not found' });
    expect(restErrorFromAppError(AppError.forbidden())).toMatchObject({ status: 403, detail: 'Your role may not do this' });
    expect(restErrorFromAppError(new AppError('PAYLOAD_TOO_LARGE', 'File is larger than 10 bytes'))).toMatchObject({ status: 413, detail: 'File is larger than 10 bytes' });
    expect(restErrorFromAppError(new AppError('UNSUPPORTED_MEDIA_TYPE', 'not a PDF'))).toMatchObject({ status: 415 });
  });

  it('should unwrap payloads and lookups, or fail in REST terms', () => {
    expect(fromPayload({ userErrors: [], request: { id: 'r' } }, 'request')).toEqual({ id: 'r' });
    const refused = (() => {
      try {
        fromPayload({ userErrors: [{ field: ['input', 'fields'], message: 'bad', code: 'INVALID' }], contract: null }, 'contract', 400);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RestError);
    expect(refused).toMatchObject({ status: 400, detail: [{ loc: ['body', 'fields'], msg: 'bad', type: 'invalid' }], message: 'Validation error' });
    expect(found(0, 'Count')).toBe(0);
    expect(() => found(null, 'Template')).toThrow('Template not found');
    expect(() => found(undefined, 'Team')).toThrow(RestError);
  });
});
