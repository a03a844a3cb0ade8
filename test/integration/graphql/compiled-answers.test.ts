import type { GraphQLField } from 'graphql';
import { buildApp } from '../../../src/app';
import { client, createTenant, createTestApp, testConfig, type TestApp } from '../../support/app';
import { DEEP_SELECTION_ALIASES, deepSelection, forRecipient } from '../../support/graphql-schema';
import { startReceiver } from '../../support/receiver';
import { fillPath, pathParams, REST_ROWS, restNoun, rowName } from '../../support/rest-rows';
import { buildWorld, ROOT_ID_NOUNS, type World } from '../../support/world';

// A document's first run is executed by graphql-js, which serializes every leaf; later runs by the
// query graphql-jit compiled from it, which passes built-in scalars and enums on as the resolvers
// return them (JIT_OPTIONS in src/kernel/graphql/plugin.ts). A resolver returning a value of another
// type (a count as text, a number for a string) would answer differently once compiled. Every root
// query with everything under it, and every REST GET row, must answer the same bytes both ways: on
// an instance of its own, so that its first run of each document is the uncompiled one.
describe('documents answer the same compiled as not', () => {
  let t: TestApp;
  let world: World;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let fresh: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    t = await createTestApp({ graphql: { ...testConfig().graphql, maxAliases: DEEP_SELECTION_ALIASES } });
    receiver = await startReceiver();
    world = await buildWorld(t, await createTenant(t.db, 'Acme'), receiver.url, 'Acme');
    // The world was built through `t.app`, which has compiled the documents it ran.
    fresh = await buildApp({
      config: t.config,
      orm: t.orm,
      storage: t.storage,
      runJobs: false,
    });
    await fresh.ready();
  }, 120_000);
  afterAll(async () => {
    await fresh.close();
    await receiver.close();
    await t.close();
  });

  /** Runs `call` twice: the uncompiled answer, then the compiled one. */
  async function twice(call: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>) {
    const first = await call();
    const second = await call();
    return { first, second };
  }

  it('should answer every root query, everything under it selected, the same compiled as not', async () => {
    const api = client(fresh, world.adminKey);
    const recipient = client(fresh, world.recipientSession);
    const differing: string[] = [];
    let compared = 0;
    for (const field of Object.values(fresh.graphql.schema.getQueryType()!.getFields()) as GraphQLField<
      unknown,
      unknown
    >[]) {
      const idArg = field.args.find((arg) => arg.name === 'id');
      if (idArg && !ROOT_ID_NOUNS[field.name]) continue;
      const args = [
        idArg ? `id: "${world[ROOT_ID_NOUNS[field.name]]}"` : '',
        field.args.some((arg) => arg.name === 'first') ? 'first: 100' : '',
      ]
        .filter(Boolean)
        .join(', ');
      const query = `{ ${field.name}${args ? `(${args})` : ''} ${deepSelection(fresh.graphql.schema, field.type, 6, new Set())} }`;
      const { first, second } = await twice(() => (forRecipient(field) ? recipient : api).post('/graphql', { query }));
      expect(JSON.parse(first.body).errors).toBeUndefined();
      if (first.body !== second.body) {
        let i = 0;
        while (first.body[i] === second.body[i]) i++;
        differing.push(
          `Query.${field.name}: ${first.body.slice(Math.max(0, i - 120), i + 40)} <> ${second.body.slice(i, i + 40)}`,
        );
      }
      compared++;
    }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(20);
  });

  it('should answer every REST GET row the same compiled as not', async () => {
    const api = client(fresh, world.adminKey);
    const differing: string[] = [];
    let compared = 0;
    for (const row of REST_ROWS.filter((r) => r.method === 'GET')) {
      const params = pathParams(row.url);
      const nouns = params.map((param) => restNoun(row, param));
      if (nouns.some((noun) => !noun)) continue;
      const url = fillPath(row.url, Object.fromEntries(params.map((param, i) => [param, world[nouns[i]!]])));
      for (const revision of ['1', '2']) {
        const { first, second } = await twice(() => api.get(url, { 'api-revision': revision }));
        expect(`${rowName(row)} ${first.statusCode}`).toBe(`${rowName(row)} 200`);
        // Files and archives are bytes, not documents' answers.
        if (!String(first.headers['content-type']).startsWith('application/json')) continue;
        if (first.body !== second.body)
          differing.push(
            `${rowName(row)} (API-Revision ${revision}):\n  ${first.body.slice(0, 400)}\n  ${second.body.slice(0, 400)}`,
          );
        compared++;
      }
    }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(60);
  });
});
