import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { registerOpenApi } from '../../../src/kernel/http/openapi';
import { createTestApp, type TestApp } from '../../support/app';
import { checkResponses, documentPath } from '../../support/response-check';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

type Document = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { securitySchemes: Record<string, unknown> };
};

const getDocument = async (): Promise<Document> => {
  // Public: no API key.
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json();
};

/**
 * Routes that are not the REST layer, each with why: they are documented elsewhere in docs/
 * (GraphQL, the portal's page, tus) or are the documentation itself.
 */
const NOT_REST: Array<[RegExp, string]> = [
  [/^\/graphql$/, 'GraphQL: the SDL in schema/ is its document'],
  [/^\/(favicon\.ico)?$/, 'the landing page (HTML) and the icon'],
  [/^\/graphiql(\/|$)/, "GraphQL's in-browser IDE"],
  [/^\/openapi\.json$/, 'the document itself'],
  [/^\/metrics$/, "Prometheus's text format for a scraper, behind METRICS_TOKEN"],
  [/^\/docs(\/|$)/, "the document's viewer"],
  [/^\/r\/:token(\/verify)?$/, "the recipient's page (HTML)"],
  [/^\/s\/:token$/, "a share recipient's page (HTML)"],
  [/^\/r\/(signing\/)?assets\//, "the recipient page's assets, the signing view's apart"],
  [/^\/dashboard(\/assets\/:name)?$/, 'the live dashboard page (HTML) and its assets'],
  [
    /^\/app(\/\*|\/(pdf-preview\/)?assets\/:name)?$/,
    "the owner's console (HTML, every path under /app), its assets and its PDF preview's (pdf.js)",
  ],
  [/^\/sign-in(\/verify)?$/, 'the sign-in pages (HTML), whose forms post to the documented /auth/… paths'],
  [
    /^\/contracts\/:contract_id\/edit(\/contract|\/file)?$|^\/app\/editor\/assets\/:name$/,
    "the contract editor's page (HTML, a contract's annotationUrl), its assets, and what its link reads and saves (the shapes of GET and PATCH /contracts/{id})",
  ],
];

test('the document is valid OpenAPI 3.1', async () => {
  const document = await getDocument();
  expect(document.openapi).toBe('3.1.0');
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const result = await validator.validate(document as never);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('every route of the app is in the document, unless it is not REST', async () => {
  const document = await getDocument();
  // Fastify adds a HEAD to every GET; a HEAD of its own (tus) is an operation.
  const routes = t.app.routeTable.filter(
    (route) =>
      route.method !== 'HEAD' || !t.app.routeTable.some((other) => other.method === 'GET' && other.url === route.url),
  );
  const missing = routes.filter(
    (route) =>
      !NOT_REST.some(([pattern]) => pattern.test(route.url)) &&
      !document.paths[documentPath(route.url)]?.[route.method.toLowerCase()],
  );
  expect(missing).toEqual([]);
  // And nothing else: what is documented is a route.
  const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(documented.sort()).toEqual(
    routes
      .filter((route) => !NOT_REST.some(([pattern]) => pattern.test(route.url)))
      .map((route) => `${route.method} ${documentPath(route.url)}`)
      .sort(),
  );
});

test("a client's every path is there: the recipient API under its own tag, tus uploads, logos, cloud storage", async () => {
  const { paths } = await getDocument();
  const recipientApi = Object.entries(paths).filter(([path]) => path.startsWith('/r/{token}/api'));
  for (const [path, operations] of recipientApi)
    for (const [method, operation] of Object.entries(operations))
      expect([method, path, operation.tags]).toEqual([method, path, ['Recipient API']]);
  const has = (path: string) => Object.keys(paths[path] ?? {}).sort();
  expect(has('/r/{token}/api/session')).toEqual(['post']);
  expect(has('/r/{token}/api/request')).toEqual(['get']);
  expect(has('/r/{token}/api/items/{item_id}/answer')).toEqual(['put']);
  expect(has('/r/{token}/api/items/{item_id}/sign')).toEqual(['post']);
  expect(has('/r/{token}/api/submit')).toEqual(['post']);
  expect(has('/r/{token}/api/uploads')).toEqual(['options', 'post']);
  expect(has('/r/{token}/api/uploads/{id}')).toEqual(['delete', 'head', 'options', 'patch']);
  expect(paths['/r/{token}/api/uploads'].post.security).toEqual([{ recipientSession: [] }, { recipientCookie: [] }]);
  expect(has('/branding/{org_id}/logo/{hash}')).toEqual(['get']);
  expect(paths['/branding/{org_id}/logo/{hash}'].get.security).toEqual([]);
  expect(has('/cloud-storage/{provider}')).toEqual(['delete', 'post']);
});

test('API key, recipient and public routes name their security', async () => {
  const { paths, components } = await getDocument();
  expect(Object.keys(components.securitySchemes).sort()).toEqual([
    'apiKeyHeader',
    'bearerAuth',
    'recipientCookie',
    'recipientSession',
    'userSession',
  ]);
  expect(paths['/requests'].get.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }, { userSession: [] }]);
  expect(paths['/requests'].get.responses['401'].content['application/json'].schema.required).toEqual(['detail']);
  expect(paths['/r/{token}/api/request'].get.security).toEqual([{ recipientSession: [] }, { recipientCookie: [] }]);
  expect(paths['/r/{token}/api/session'].post.security).toEqual([]);
  expect(paths['/healthz'].get.security).toEqual([]);
  // The sign-in API: its calls that ask for a link or use one need nothing; the session's own, its cookie.
  expect(paths['/auth/sign-in'].post.security).toEqual([]);
  expect(paths['/auth/verify'].post.security).toEqual([]);
  expect(paths['/auth/session'].get.security).toEqual([{ userSession: [] }]);
  expect(paths['/auth/sign-out'].post.security).toEqual([{ userSession: [] }]);
  expect(Object.keys(paths['/auth/verify'].post.requestBody.content).sort()).toEqual([
    'application/json',
    'application/x-www-form-urlencoded',
  ]);
});

test('uploads are multipart with a binary `file` part; downloads answer bytes; errors their bodies', async () => {
  const { paths } = await getDocument();
  for (const path of [
    '/contracts',
    '/attachments',
    '/requests/{request_id}/items/{item_id}/attachments',
    '/r/{token}/api/items/{item_id}/documents',
  ]) {
    const operation = paths[path].post;
    const schema = operation.requestBody.content['multipart/form-data'].schema;
    expect(schema.required).toEqual(['file']);
    expect(schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['413', '415', '422']));
  }
  for (const path of [
    '/documents/{document_id}/download',
    '/requests/{request_id}/download',
    '/r/{token}/api/documents/{file_id}',
  ]) {
    expect(paths[path].get.responses['200'].content['application/octet-stream'].schema.format).toBe('binary');
  }
  expect(paths['/requests/{request_id}/download'].get.responses['204'].content).toBeUndefined();
  const invalid = paths['/requests'].post.responses['422'].content['application/json'].schema;
  expect(invalid.properties.detail.items.required).toEqual(['loc', 'msg', 'type']);
  expect(paths['/r/{token}/api'].get.responses['410'].content['application/json'].schema.required).toEqual(['detail']);
  expect(paths['/r/{token}/api/session'].post.responses['429']).toBeDefined();
});

test('the viewer at /docs loads only what Gather serves', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/docs/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  // The browser enforces the policy: scripts, styles, fonts and images from this origin only.
  const policy = String(page.headers['content-security-policy']);
  expect(policy).toContain("default-src 'self'");
  expect(policy).not.toMatch(/https?:|\*|validator/);
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(assets.length).toBeGreaterThan(3);
  for (const asset of assets) {
    expect(asset).not.toMatch(/^(https?:)?\/\//);
    const response = await t.app.inject({ method: 'GET', url: new URL(asset, 'http://gather.test/docs/').pathname });
    expect([asset, response.statusCode]).toEqual([asset, 200]);
  }
  // The page reads the same document as /openapi.json.
  const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  expect(initializer.body).toContain("resolveUrl('./json')");
  const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
  expect(json.json()).toEqual(await getDocument());
});

test('the response check records an answer its documented schema refuses', async () => {
  const app = Fastify();
  await registerOpenApi(app);
  app.get(
    '/thing',
    { config: { public: true }, schema: { tags: ['Test'], response: { 200: Type.Object({ id: Type.String() }) } } },
    async (_request, reply) =>
      // Past the serializer, as a handler that builds its own JSON would be.
      reply.type('application/json').serializer(JSON.stringify).send({ id: 7 }),
  );
  app.get(
    '/teapot',
    { config: { public: true }, schema: { tags: ['Test'], response: { 200: Type.Object({ id: Type.String() }) } } },
    async (_request, reply) => reply.code(418 as 200).send({ id: 'x' }),
  );
  const { failures } = checkResponses(app);
  await app.ready();
  await app.inject({ method: 'GET', url: '/thing' });
  await app.inject({ method: 'GET', url: '/teapot' });
  await app.close();
  expect(failures).toEqual([
    expect.stringMatching(/^GET \/thing 200: data\/id must be string/),
    'GET /teapot 418: status not documented',
  ]);
});
