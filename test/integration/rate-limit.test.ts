import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTenant, createTestApp, type TestApp } from '../support/app';
import { requestWithLink } from '../support/portal';
import { operation, wsClient } from '../support/ws';

// Rate limits per API key, per recipient link and per client address, with low limits configured:
// 429 with Retry-After and RateLimit-* headers over REST, RATE_LIMITED over GraphQL, and one count
// for two instances on one database. A credential or link that names no one counts against the
// address; each operation of a batch counts, and each operation over WebSocket.

const LIMITS = { windowMs: 60_000, apiKey: 3, link: 2, address: 2 };

describe('rate limits', () => {
  let t: TestApp;
  let second: FastifyInstance;

  beforeAll(async () => {
    t = await createTestApp({ rateLimits: LIMITS });
    // Another instance on the same database, as behind a load balancer.
    second = await buildApp({
      config: t.config,
      orm: t.orm,
      runJobs: false,
    });
    await second.ready();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  const get = (app: FastifyInstance, url: string, apiKey?: string, remoteAddress?: string) =>
    app.inject({ method: 'GET', url, remoteAddress, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  const counters = async () =>
    (await t.orm.em.fork().getConnection().execute<{ key: string }[]>(`select key from rate_limit_counter`)).map(
      (row) => row.key,
    );

  it('should count an API key over REST and GraphQL together and answer 429 with Retry-After and RateLimit-* past its limit', async () => {
    const { apiKey } = await createTenant(t.db);
    const answers = [await get(t.app, '/templates', apiKey), await get(t.app, '/templates', apiKey)];
    const graphql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ viewer { id } }' },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect([...answers, graphql].map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect([...answers, graphql].map((a) => a.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect(answers[0].headers['ratelimit-limit']).toBe(String(LIMITS.apiKey));
    expect(Number(answers[0].headers['ratelimit-reset'])).toBeGreaterThan(0);

    const refused = await get(t.app, '/templates', apiKey);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LIMITS.windowMs / 1000);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.json()).toEqual({ detail: `Rate limit exceeded, retry in ${retryAfter} s` });

    const refusedGraphQL = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ viewer { id } }' },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(refusedGraphQL.statusCode).toBe(429);
    expect(refusedGraphQL.json()).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringMatching(/^Rate limit exceeded/),
          extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) },
        },
      ],
    });
    expect(refusedGraphQL.headers['retry-after']).toEqual(expect.any(String));

    // Another key has its own count.
    const other = await createTenant(t.db);
    expect((await get(t.app, '/templates', other.apiKey)).statusCode).toBe(200);
  });

  it('should share the count between two instances on one database', async () => {
    const { apiKey } = await createTenant(t.db);
    expect((await get(t.app, '/templates', apiKey)).statusCode).toBe(200);
    expect((await get(second, '/templates', apiKey)).statusCode).toBe(200);
    expect((await get(t.app, '/templates', apiKey)).headers['ratelimit-remaining']).toBe('0');
    expect((await get(second, '/templates', apiKey)).statusCode).toBe(429);
    expect((await get(t.app, '/templates', apiKey)).statusCode).toBe(429);
  });

  it('should count a new window once the last one ended', async () => {
    const { apiKey } = await createTenant(t.db);
    for (let i = 0; i < LIMITS.apiKey; i++) await get(t.app, '/templates', apiKey);
    expect((await get(t.app, '/templates', apiKey)).statusCode).toBe(429);
    // The window ends (moved, rather than waited for).
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update rate_limit_counter set reset_at = now() where key like 'key:%'`);
    const fresh = await get(t.app, '/templates', apiKey);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['ratelimit-remaining']).toBe(String(LIMITS.apiKey - 1));
    // Ended windows are swept.
    await t.orm.em.fork().getConnection().execute(`update rate_limit_counter set reset_at = now()`);
    expect((await t.app.edgeStore.sweep()).counters).toBeGreaterThan(0);
    expect(await t.orm.em.fork().getConnection().execute(`select key from rate_limit_counter`)).toEqual([]);
  });

  it('should count a recipient link by its token, whatever the caller sends', async () => {
    const { apiKey } = await createTenant(t.db);
    const one = await requestWithLink(t.app, apiKey);
    const other = await requestWithLink(t.app, apiKey);
    const link = `/r/${one.token}/api`;
    expect((await get(t.app, link)).statusCode).toBe(200);
    expect((await get(second, link, 'gth_made-up', '10.0.0.1')).statusCode).toBe(200);
    const refused = await get(t.app, link);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    expect(refused.json().detail).toMatch(/^Rate limit exceeded/);
    expect((await get(t.app, `/r/${other.token}/api`)).statusCode).toBe(200);
  });

  it('should count made-up API keys, session tokens and links against their address, and keep no counter of theirs', async () => {
    const before = await counters();
    const address = '10.0.0.2';
    const madeUp = () => randomBytes(24).toString('base64url');
    const graphql = (credential: string) =>
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        remoteAddress: address,
        payload: { query: '{ viewer { id } }' },
        headers: { authorization: `Bearer ${credential}` },
      });
    expect((await get(t.app, '/templates', `gth_${madeUp()}`, address)).statusCode).toBe(401);
    expect((await graphql(`grs_${madeUp()}`)).statusCode).toBe(401);
    const refused = [
      await get(t.app, '/templates', `gth_${madeUp()}`, address),
      await get(t.app, `/r/${madeUp()}/api`, undefined, address),
      await get(second, `/r/${madeUp()}/api/request`, `grs_${madeUp()}`, address),
    ];
    expect(refused.map((r) => [r.statusCode, r.json().detail])).toEqual(
      refused.map(() => [429, expect.stringMatching(/^Rate limit exceeded, retry in \d+ s$/)]),
    );
    const refusedGraphQL = await graphql(`gth_${madeUp()}`);
    expect(refusedGraphQL.statusCode).toBe(429);
    expect(refusedGraphQL.json().errors[0].extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfter: expect.any(Number),
    });
    // One counter: the address's.
    expect((await counters()).filter((key) => !before.includes(key))).toEqual([`address:${address}`]);
  });

  it('should count each operation of a batch against the key, and refuse a batch past the limit whole', async () => {
    const { apiKey } = await createTenant(t.db);
    const batch = (operations: string[]) =>
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        payload: operations.map((query) => ({ query })),
        headers: { authorization: `Bearer ${apiKey}` },
      });
    const two = await batch(['{ viewer { id } }', '{ organization { id } }']);
    expect(two.statusCode).toBe(200);
    expect(two.headers['ratelimit-remaining']).toBe(String(LIMITS.apiKey - 2));
    const refused = await batch([
      '{ viewer { id } }',
      'mutation { teamCreate(input: { name: "Past the limit" }) { team { id } } }',
    ]);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    expect(refused.json()).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringMatching(/^Rate limit exceeded/),
          extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) },
        },
      ],
    });
    const [{ n }] = await t.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from team where name = 'Past the limit'`);
    expect(n).toBe(0);
  });

  it('should count each operation over WebSocket against its key, refusing those past the limit with RATE_LIMITED', async () => {
    const { apiKey } = await createTenant(t.db);
    const { client: ws } = wsClient(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`, {
      authorization: `Bearer ${apiKey}`,
    });
    try {
      for (let i = 0; i < LIMITS.apiKey; i++)
        expect((await operation(ws, '{ viewer { id } }')).result?.data?.viewer.id).toEqual(expect.any(String));
      expect((await operation(ws, '{ viewer { id } }')).errors).toEqual([
        {
          message: expect.stringMatching(/^Rate limit exceeded/),
          extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) },
        },
      ]);
      expect((await get(t.app, '/templates', apiKey)).statusCode).toBe(429);
    } finally {
      await ws.dispose();
    }
  });

  it('should count callers without a credential by their address, and leave health checks out', async () => {
    // The address of every injected request is 127.0.0.1: one bucket for these.
    expect((await get(t.app, '/openapi.json')).statusCode).toBe(200);
    expect((await get(t.app, '/templates')).statusCode).toBe(401);
    expect((await get(t.app, '/openapi.json')).statusCode).toBe(429);
    const graphql = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ viewer { id } }' } });
    expect(graphql.statusCode).toBe(429);
    expect(graphql.json().errors[0].extensions.code).toBe('RATE_LIMITED');
    for (let i = 0; i < 5; i++) expect((await get(t.app, '/healthz')).statusCode).toBe(200);
  });
});
