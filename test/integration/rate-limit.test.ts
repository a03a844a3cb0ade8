import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { createTenant, createTestApp, type TestApp } from '../support/app';

// Rate limits per API key, per recipient link and per client address, with low limits configured:
// 429 with Retry-After and RateLimit-* headers over REST, RATE_LIMITED over GraphQL, and one count
// for two instances on one database.

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
      deliverWebhooks: false,
      sendNotifications: false,
      runJobs: false,
    });
    await second.ready();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  const get = (app: FastifyInstance, url: string, apiKey?: string) =>
    app.inject({ method: 'GET', url, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });

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
    const link = '/r/not-a-real-link/api';
    expect((await get(t.app, link)).statusCode).toBe(404);
    expect((await get(second, link)).statusCode).toBe(404);
    const refused = await get(t.app, link);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    expect(refused.json().detail).toMatch(/^Rate limit exceeded/);
    expect((await get(t.app, '/r/another-link/api')).statusCode).toBe(404);
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
