import { Writable } from 'node:stream';
import pino from 'pino';
import { MAX_JSON_DEPTH } from '../../../src/kernel/limits';
import { createTenant, createTestApp, type TestApp } from '../../support/app';

// What POST /graphql answers when the HTTP request itself is refused, before any GraphQL runs: the
// status REST gives the same body, in GraphQL's error shape, never a masked internal error.

const BODY_LIMIT = 2048;

describe('GraphQL over HTTP: requests refused before GraphQL runs', () => {
  let t: TestApp;
  let apiKey: string;
  const logged: Array<{ level: number; msg: string }> = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged.push(JSON.parse(String(chunk)));
        done();
      },
    });
    t = await createTestApp({ bodyLimit: BODY_LIMIT }, { loggerInstance: pino({ level: 'info' }, sink) });
    apiKey = (await createTenant(t.db)).apiKey;
  });
  afterAll(() => t.close());
  beforeEach(() => {
    logged.length = 0;
  });

  const post = (payload: string) =>
    t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    });
  const errorsLogged = () => logged.filter((line) => line.level >= 50);

  it('should answer a body over BODY_LIMIT with 413 and PAYLOAD_TOO_LARGE, as REST answers 413', async () => {
    const response = await post(JSON.stringify({ query: `{ viewer { email } } # ${'x'.repeat(BODY_LIMIT)}` }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      data: null,
      errors: [
        { message: `Request body is larger than ${BODY_LIMIT} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } },
      ],
    });
    expect(errorsLogged()).toEqual([]);
    const rest = await t.app.inject({
      method: 'POST',
      url: '/requests',
      payload: JSON.stringify({ notes: 'x'.repeat(BODY_LIMIT) }),
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    });
    expect({ status: rest.statusCode, body: rest.json() }).toEqual({
      status: 413,
      body: { detail: `Request body is larger than ${BODY_LIMIT} bytes` },
    });
  });

  it('should answer a body that is not JSON with 400 and what the parser said', async () => {
    const response = await post('{"query": "{ viewer { email } }"');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      data: null,
      errors: [{ message: expect.stringMatching(/^Body is not valid JSON: /), extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect(errorsLogged()).toEqual([]);
  });

  it('should answer a body nested deeper than the limit with 400', async () => {
    const deep = `${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}`;
    const response = await post(`{"query": "{ viewer { email } }", "variables": ${deep}}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      data: null,
      errors: [{ message: `Body nests deeper than ${MAX_JSON_DEPTH} levels`, extensions: { code: 'BAD_USER_INPUT' } }],
    });
  });

  it('should answer a GET without a query with 400', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/graphql',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      data: null,
      errors: [{ message: 'Unknown query', extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect(errorsLogged()).toEqual([]);
  });

  it('should still answer a body of the wrong shape and an invalid document as GraphQL validation failures', async () => {
    const array = await post('[1]');
    expect(array.statusCode).toBe(400);
    expect(array.json().errors).toEqual([
      expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
    const unknownField = await post(JSON.stringify({ query: '{ nope }' }));
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().errors).toEqual([
      expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
    const ok = await post(JSON.stringify({ query: '{ viewer { id } }' }));
    expect(ok.statusCode).toBe(200);
  });
});
