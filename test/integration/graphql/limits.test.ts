import { createHash } from 'node:crypto';
import {
  DEFAULT_MAX_QUERY_ALIASES,
  MAX_BATCH_OPERATIONS,
  MAX_QUERY_COST,
  MAX_QUERY_DEPTH,
  MAX_QUERY_DIRECTIVES,
  MAX_QUERY_TOKENS,
} from '../../../src/kernel/limits';
import type { FastifyInstance } from 'fastify';
import { createTenant, createTestApp, productionInstance, type TestApp } from '../../support/app';

// What a document may ask for (depth, aliases, directives, tokens, cost), introspection, suggestions and
// GraphiQL in production, automatic persisted queries and batches (measured as a whole): each through
// HTTP, each refusal coded.

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

  it("should refuse more aliases than graphql-armor's default of 15 (GRAPHQL_MAX_ALIASES) and answer as many", async () => {
    expect(DEFAULT_MAX_QUERY_ALIASES).toBe(15);
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
    await refusedFor(aliases(DEFAULT_MAX_QUERY_ALIASES + 1), 'aliases', DEFAULT_MAX_QUERY_ALIASES);
    const within = await post({ query: aliases(DEFAULT_MAX_QUERY_ALIASES) });
    expect(within.statusCode).toBe(200);
    expect(Object.keys(within.json().data)).toHaveLength(DEFAULT_MAX_QUERY_ALIASES);
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
      production = await productionInstance(t);
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

    it('should suggest no names of the schema ("Did you mean …") where introspection is off', async () => {
      const misspelt = [
        { query: '{ viewer { emial } }' },
        { query: '{ requests(frist: 1) { totalCount } }' },
        {
          query: 'query ($o: RequestOrder) { requests(orderBy: $o) { totalCount } }',
          variables: { o: { field: 'CREATD_AT', direction: 'ASC' } },
        },
      ];
      for (const payload of misspelt) {
        const there = await post(payload);
        expect(there.json().errors[0].message).toMatch(/ Did you mean (the enum value )?"/);
        const refused = await post(payload, production);
        expect(refused.statusCode).toBe(400);
        const [error] = refused.json().errors;
        expect(error.message).toBe(there.json().errors[0].message.replace(/ Did you mean .*$/, ''));
        expect(error.extensions.code).toMatch(/^(GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT)$/);
      }
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
  describe('a batch, measured as a whole', () => {
    // Each operation alone within every limit; the batch's together beyond one.
    const heavy =
      '{ organization { users(first: 100) { nodes { organization { users(first: 100) { nodes { id email } } } } } } }';
    const teams = async () =>
      (
        await t.orm.em.fork().getConnection().execute(`select count(*)::int as n from team where name = 'From a batch'`)
      )[0].n;
    const create = { query: 'mutation { teamCreate(input: { name: "From a batch" }) { team { id } } }' };

    const refusedWhole = async (batch: unknown[], limit: string, max: number) => {
      const response = await post(batch);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        data: null,
        errors: [
          {
            message: `The operations of this batch together exceed the ${limit} limit of ${max}`,
            extensions: { code: 'QUERY_TOO_COMPLEX', limit, max },
          },
        ],
      });
      expect(await teams()).toBe(0);
    };

    it('should refuse a batch whose operations together cost more than MAX_QUERY_COST, running none of them', async () => {
      expect((await post({ query: heavy })).statusCode).toBe(200);
      await refusedWhole([{ query: heavy }, { query: heavy }, { query: heavy }, create], 'cost', MAX_QUERY_COST);
    });

    it('should count a persisted query of a batch by the document its hash names', async () => {
      const sha256Hash = createHash('sha256').update(heavy).digest('hex');
      const extensions = { persistedQuery: { version: 1, sha256Hash } };
      expect((await post({ query: heavy, extensions })).statusCode).toBe(200);
      await refusedWhole([{ extensions }, { extensions }, { extensions }, create], 'cost', MAX_QUERY_COST);
    });

    it('should refuse a batch whose operations together hold more aliases than the limit', async () => {
      const twoAliases = { query: '{ a: viewer { id } b: viewer { id } }' };
      const batch = [...Array.from({ length: Math.ceil(DEFAULT_MAX_QUERY_ALIASES / 2) }, () => twoAliases), create];
      await refusedWhole(batch, 'aliases', DEFAULT_MAX_QUERY_ALIASES);
    });

    it('should refuse a batch whose documents together hold more than MAX_QUERY_TOKENS tokens', async () => {
      const half = { query: `{ viewer { ${'id '.repeat(MAX_QUERY_TOKENS / 2)} } }` };
      await refusedWhole([half, half, create], 'tokens', MAX_QUERY_TOKENS);
    });

    it('should run a batch within the limits together, each operation refused or answered on its own', async () => {
      const response = await post([{ query: heavy }, create, { query: '{ viewer { id ' }]);
      expect(response.statusCode).toBe(200);
      const [read, created, broken] = response.json();
      expect(read.data.organization.users.nodes.length).toBeGreaterThan(0);
      expect(created.data.teamCreate.team.id).toEqual(expect.any(String));
      expect(broken.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      await t.orm.em.fork().getConnection().execute(`delete from team where name = 'From a batch'`);
    });
  });
});
