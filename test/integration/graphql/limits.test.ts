import { createHash } from 'node:crypto';
import {
  MAX_BATCH_OPERATIONS,
  MAX_QUERY_ALIASES,
  MAX_QUERY_COST,
  MAX_QUERY_DEPTH,
  MAX_QUERY_DIRECTIVES,
  MAX_QUERY_TOKENS,
} from '../../../src/kernel/limits';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app';
import { createTenant, createTestApp, type TestApp } from '../../support/app';

// What a document may ask for (depth, aliases, directives, tokens, cost), introspection and GraphiQL
// in production, automatic persisted queries and batches: each through HTTP, each refusal coded.

describe('GraphQL limits', () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    apiKey = (await createTenant(t.db)).apiKey;
  });
  afterAll(() => t.close());

  const post = (payload: unknown, app = t.app, key = apiKey) =>
    app.inject({
      method: 'POST',
      url: '/graphql',
      payload: payload as object,
      headers: { authorization: `Bearer ${key}` },
    });

  const refusedFor = async (query: string, limit: string, max: number) => {
    const response = await post({ query });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      data: null,
      errors: [expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', limit, max } })],
    });
  };

  it('should refuse a document nested deeper than MAX_QUERY_DEPTH', async () => {
    // Three levels per round: organization, users, nodes.
    const nested = (rounds: number): string =>
      rounds === 0 ? 'id' : `organization { users(first: 1) { nodes { ${nested(rounds - 1)} } } }`;
    const query = `{ viewer { ${nested(Math.ceil(MAX_QUERY_DEPTH / 3))} } }`;
    const response = await post({ query });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'depth', max: MAX_QUERY_DEPTH } }),
    ]);
  });

  it('should refuse more aliases than MAX_QUERY_ALIASES and answer as many', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
    await refusedFor(aliases(MAX_QUERY_ALIASES + 1), 'aliases', MAX_QUERY_ALIASES);
    const within = await post({ query: aliases(MAX_QUERY_ALIASES) });
    expect(within.statusCode).toBe(200);
    expect(Object.keys(within.json().data)).toHaveLength(MAX_QUERY_ALIASES);
  });

  it('should refuse more directives than MAX_QUERY_DIRECTIVES', async () => {
    await refusedFor(
      `{ viewer { ${'id @include(if: true) '.repeat(MAX_QUERY_DIRECTIVES + 1)} } }`,
      'directives',
      MAX_QUERY_DIRECTIVES,
    );
  });

  it('should refuse a document of more than MAX_QUERY_TOKENS tokens before building it', async () => {
    await refusedFor(`{ viewer { ${'id '.repeat(MAX_QUERY_TOKENS)} } }`, 'tokens', MAX_QUERY_TOKENS);
  });

  it('should refuse a document costlier than MAX_QUERY_COST: lists multiply by their page size', async () => {
    const costly = `{ organization { users(first: 100) { nodes { organization { users(first: 100) { nodes { organization { users(first: 100) { nodes { id } } } } } } } } } }`;
    await refusedFor(costly, 'cost', MAX_QUERY_COST);
  });

  it('should answer introspection and serve GraphiQL outside production', async () => {
    const response = await post({ query: '{ __schema { queryType { name } } }' });
    expect(response.json()).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect((await t.app.inject({ method: 'GET', url: '/graphiql' })).statusCode).toBe(200);
  });

  describe('in production', () => {
    // A second instance on the same database, so the tenant made above calls it too.
    let production: FastifyInstance;
    beforeAll(async () => {
      production = await buildApp({
        config: { ...t.config, production: true, graphql: { graphiql: false, introspection: false } },
        orm: t.orm,
        deliverWebhooks: false,
        sendNotifications: false,
        runJobs: false,
      });
      await production.ready();
    });
    afterAll(() => production.close());

    it('should refuse introspection with INTROSPECTION_DISABLED and serve no GraphiQL, while __typename still answers', async () => {
      const response = await post({ query: '{ __schema { queryType { name } } }' }, production);
      expect(response.statusCode).toBe(400);
      expect(response.json().data).toBeNull();
      expect(response.json().errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([
        { code: 'INTROSPECTION_DISABLED' },
        { code: 'INTROSPECTION_DISABLED' },
      ]);
      const typeQuery = await post({ query: '{ __type(name: "Request") { name } }' }, production);
      expect(typeQuery.json().errors[0].extensions.code).toBe('INTROSPECTION_DISABLED');
      expect((await post({ query: '{ __typename viewer { id } }' }, production)).json().data.__typename).toBe('Query');
      expect((await production.inject({ method: 'GET', url: '/graphiql' })).statusCode).toBe(404);
    });
  });

  it('should run a document by its hash once it was sent with it (automatic persisted queries)', async () => {
    const query = '{ viewer { id email } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const unknown = await post({ extensions });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      data: null,
      errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
    });
    const registered = await post({ query, extensions });
    expect(registered.statusCode).toBe(200);
    const byHash = await post({ extensions });
    expect(byHash.json()).toEqual(registered.json());
    // A dashboard may send the hash in a GET, which caches.
    const get = await t.app.inject({
      method: 'GET',
      url: `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(get.json()).toEqual(registered.json());
    const mismatch = await post({ query: '{ viewer { id } }', extensions });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('should answer a batch of operations in order, and refuse one of more than MAX_BATCH_OPERATIONS whole', async () => {
    const batch = await post([
      { query: '{ viewer { id } }' },
      { query: '{ organization { id } }' },
      { query: '{ nope }' },
    ]);
    expect(batch.statusCode).toBe(200);
    const [viewer, organization, invalid] = batch.json();
    expect(viewer.data.viewer.id).toEqual(expect.any(String));
    expect(organization.data.organization.id).toEqual(expect.any(String));
    expect(invalid.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const tooMany = await post(
      Array.from({ length: MAX_BATCH_OPERATIONS + 1 }, () => ({ query: '{ viewer { id } }' })),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringContaining(`at most ${MAX_BATCH_OPERATIONS} operations`),
          extensions: { code: 'TOO_MANY_OPERATIONS', max: MAX_BATCH_OPERATIONS },
        },
      ],
    });
  });
});
