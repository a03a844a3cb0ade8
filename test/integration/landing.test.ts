import { buildClientSchema } from 'graphql';
import { createTestApp, type TestApp } from '../support/app';

// What a person finds at the address the start log prints: a page of the service's URLs, each of
// which answers without a key, an icon for every page, and tools that open without an error.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ metricsToken: 'landing-test-metrics-token-1' });
});

afterAll(async () => {
  await t.close();
});

test('GET / lists the service URLs, and each one it links answers without a key', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(String(page.headers['content-security-policy'])).toMatch(/^default-src 'none'; style-src 'sha256-/);
  const links = [...page.body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  expect(links).toEqual([
    '/favicon.ico',
    '/graphiql',
    '/docs',
    '/openapi.json',
    '/app',
    '/dashboard',
    '/sign-in',
    '/healthz',
    '/readyz',
  ]);
  // What clients call is named, not linked: a browser would get a 401.
  for (const path of ['/graphql', '/r/{token}', '/metrics']) expect(page.body).toContain(`<code>${path}</code>`);
  const answers = await Promise.all(
    links.map(async (url) => [url, (await t.app.inject({ method: 'GET', url })).statusCode]),
  );
  expect(answers).toEqual(links.map((url) => [url, 200]));
});

test('/favicon.ico is an icon, so no page load asks for one that is refused', async () => {
  const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
  expect(icon.statusCode).toBe(200);
  expect(icon.headers['content-type']).toBe('image/x-icon');
  // An ICO directory of one image (reserved 0, type 1, count 1), the image a PNG.
  expect([...icon.rawPayload.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
  expect(icon.rawPayload.subarray(22, 26).toString('latin1')).toBe('\x89PNG');
});

test('GraphiQL gets the schema without a key, and its placeholder is a header a browser sends', async () => {
  const schema = await t.app.inject({ method: 'GET', url: '/graphiql/schema.json' });
  expect(schema.statusCode).toBe(200);
  expect(buildClientSchema(schema.json()).getQueryType()?.getFields().viewer).toBeDefined();
  const page = await t.app.inject({ method: 'GET', url: '/graphiql' });
  const boot = /src="(\/graphiql\/assets\/boot\.[^"]+)"/.exec(page.body)![1];
  const script = (await t.app.inject({ method: 'GET', url: boot })).body;
  const placeholder = /Authorization: '([^']+)'/.exec(script)![1];
  expect(placeholder).toMatch(/^[\x20-\x7e]+$/);
});

test('without introspection, GraphiQL has no schema to fetch', async () => {
  const closed = await createTestApp({ graphql: { ...t.config.graphql, introspection: false } });
  try {
    const schema = await closed.app.inject({ method: 'GET', url: '/graphiql/schema.json' });
    expect(schema.statusCode).toBe(404);
  } finally {
    await closed.close();
  }
});

test('/docs tries calls at the origin it was opened at, with a policy that lets the viewer style itself', async () => {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  expect(document.servers).toEqual([{ url: '/' }]);
  const page = await t.app.inject({ method: 'GET', url: '/docs/' });
  const policy = String(page.headers['content-security-policy']);
  expect(policy).toContain("style-src 'self' 'unsafe-inline';");
  expect(policy).not.toContain('upgrade-insecure-requests');
  expect(page.body).toContain('<title>Gather · REST API</title>');
});
