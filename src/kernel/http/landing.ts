import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

// `GET /`: what a person who opens the address the start log prints finds, a page of the service's
// URLs; and the icon every page of Gather shows, so no page load asks for one that is refused.

/** `open`: a browser gets it with no key (the landing page links it); the others are for clients. */
export type ServiceUrl = { path: string; what: string; open?: boolean };

/** The URLs a person or a client uses, in the order the start log and the landing page list them. */
export function serviceUrls(options: { graphiql: boolean; metrics: boolean }): ServiceUrl[] {
  return [
    { path: '/graphql', what: 'GraphQL API (HTTP POST and graphql-ws subscriptions)' },
    ...(options.graphiql ? [{ path: '/graphiql', what: 'GraphiQL, the in-browser GraphQL IDE', open: true }] : []),
    { path: '/docs', what: 'REST API reference, with Try it out', open: true },
    { path: '/openapi.json', what: 'OpenAPI 3.1 document of the REST API', open: true },
    {
      path: '/app',
      what: "the owner's console: requests, templates, webhooks, settings (sign in by email)",
      open: true,
    },
    { path: '/dashboard', what: 'live dashboard of the requests (paste an API key)', open: true },
    { path: '/sign-in', what: 'sign in in a browser by e-mail link (a session every API takes)', open: true },
    { path: '/r/{token}', what: "a recipient's portal (the link each recipient is sent)" },
    { path: '/healthz', what: 'liveness: the process answers', open: true },
    { path: '/readyz', what: 'readiness: the database answers', open: true },
    ...(options.metrics ? [{ path: '/metrics', what: 'Prometheus metrics (bearer METRICS_TOKEN)' }] : []),
  ];
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:44rem;padding:2rem 1rem;color:#1b1f24}
h1{font-size:1.6rem;margin:0 0 .25rem}p{margin:.25rem 0 1rem;color:#4a5260}
ul{list-style:none;padding:0}li{padding:.5rem 0;border-top:1px solid #e3e6ea}
a,code{font-family:ui-monospace,monospace}a{color:#2f5bd3}code{color:#1b1f24}span{display:block;color:#4a5260}`;

let icon: Buffer | undefined;
/** Gather's icon (32 px), for /favicon.ico and the pages that name one. */
export const favicon = (): Buffer => (icon ??= readFileSync(join(__dirname, 'assets/favicon.ico')));

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function registerLanding(app: FastifyInstance, urls: ServiceUrl[]): void {
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const items = urls
    .map(({ path, what, open }) => {
      const label = open ? `<a href="${path}">${path}</a>` : `<code>${escape(path)}</code>`;
      return `<li>${label}<span>${escape(what)}</span></li>`;
    })
    .join('\n');
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gather</title>
<link rel="icon" href="/favicon.ico">
<style>${STYLE}</style>
</head>
<body>
<h1>Gather</h1>
<p>Document collection: requests, recipients' links, e-signatures, webhooks. Calls to the API carry an API key: <code>Authorization: Bearer gth_…</code>.</p>
<ul>
${items}
</ul>
</body>
</html>
`;
  const csp = `default-src 'none'; style-src 'sha256-${styleHash}'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`;
  const open = { config: { public: true }, schema: { hide: true } };
  app.get('/', open, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .send(page),
  );
  app.get('/favicon.ico', open, async (_request, reply) =>
    reply
      .header('content-type', 'image/x-icon')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(favicon()),
  );
}
