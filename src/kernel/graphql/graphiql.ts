import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { introspectionFromSchema } from 'graphql';

// GraphiQL, the in-browser IDE at /graphiql, with every script and style served by Gather from the
// npm packages (graphiql, react, react-dom): mercurius's own page loads them from a CDN and is blank
// without internet. The page asks for nothing but the key, which goes in its Headers tab; the schema
// comes from a public route, so the first load (before a key is written) fetches nothing that fails.

const PREFIX = '/graphiql/assets/';
const SCHEMA_PATH = '/graphiql/schema.json';
/** ASCII only: a browser refuses to send a header holding any other character. */
export const GRAPHIQL_KEY_PLACEHOLDER = 'YOUR_API_KEY';
const YEAR_SECONDS = 365 * 24 * 3600;

/** The page's own script: GraphiQL on /graphql over HTTP, and subscriptions over WebSocket there too. */
const BOOT = `(function () {
  var ws = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
  var fetcher = GraphiQL.createFetcher({ url: location.origin + '/graphql', subscriptionUrl: ws });
  var headers = JSON.stringify({ Authorization: 'Bearer ${GRAPHIQL_KEY_PLACEHOLDER}' }, null, 2);
  fetch('${SCHEMA_PATH}').then(function (response) { return response.ok ? response.json() : null; }).then(function (schema) {
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher: fetcher, schema: schema, defaultHeaders: headers, defaultEditorToolsVisibility: 'headers', shouldPersistHeaders: false })
    );
  });
})();
`;

type Asset = { name: string; type: string; body: Buffer };

function asset(file: string, type: string, body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return { name: file.replace(/(\.[a-z]+)$/, `.${hash}$1`), type, body };
}

const JS = 'text/javascript; charset=utf-8';

function loadAssets(): Asset[] {
  // From each package's folder: their `exports` do not name the UMD builds.
  const read = (name: string, file: string) =>
    readFileSync(join(dirname(require.resolve(`${name}/package.json`)), file));
  return [
    asset('react.js', JS, read('react', 'umd/react.production.min.js')),
    asset('react-dom.js', JS, read('react-dom', 'umd/react-dom.production.min.js')),
    asset('graphiql.js', JS, read('graphiql', 'graphiql.min.js')),
    asset('graphiql.css', 'text/css; charset=utf-8', read('graphiql', 'graphiql.min.css')),
    asset('boot.js', JS, Buffer.from(BOOT)),
  ];
}

/** Scripts, styles and fonts from Gather; queries to Gather. GraphiQL sets inline styles of its own. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'";

export function registerGraphiQL(app: FastifyInstance, options: { introspection: boolean }): void {
  let assets: Asset[] | undefined;
  const all = () => (assets ??= loadAssets());
  let introspection: object | undefined;
  // The same answer introspection gives a caller with a key: without introspection, GraphiQL has no schema.
  app.get(SCHEMA_PATH, { config: { public: true } }, async (_request, reply) => {
    if (!options.introspection) return reply.code(404).send({ detail: 'GraphQL introspection is off' });
    return (introspection ??= introspectionFromSchema(app.graphql.schema));
  });
  app.get('/graphiql', { config: { public: true } }, async (_request, reply) => {
    const [react, reactDom, graphiql, style, boot] = all().map((a) => `${PREFIX}${a.name}`);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('cache-control', 'no-store').send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gather · GraphiQL</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${style}">
</head>
<body style="margin:0">
<div id="graphiql" style="height:100vh"></div>
<script src="${react}"></script>
<script src="${reactDom}"></script>
<script src="${graphiql}"></script>
<script src="${boot}"></script>
</body>
</html>
`);
  });
  app.get<{ Params: { name: string } }>(`${PREFIX}:name`, { config: { public: true } }, async (request, reply) => {
    const found = all().find((a) => a.name === request.params.name);
    if (!found) return reply.code(404).send({ detail: 'Not found' });
    return reply
      .header('content-type', found.type)
      .header('cache-control', `public, max-age=${YEAR_SECONDS}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .send(found.body);
  });
}
