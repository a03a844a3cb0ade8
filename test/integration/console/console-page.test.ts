import { gzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../../support/app';

// The owner's console at /app (docs/console.md): one HTML shell for every path under it, whose
// script and stylesheet come from Gather alone under a policy with no inline script or style, and
// whose script stays within its size budget. What the shell does in a browser: test/e2e/console.e2e.ts.

/** The budget for the console's JavaScript, gzipped. */
const MAX_SCRIPT_GZIP_BYTES = 300 * 1024;

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

const assetsOf = (html: string) => ({
  script: /<script src="(\/app\/assets\/console\.[\w-]+\.js)"><\/script>/.exec(html)?.[1],
  style: /<link rel="stylesheet" href="(\/app\/assets\/console\.[\w-]+\.css)">/.exec(html)?.[1],
});

describe('GET /app', () => {
  it('should answer the same shell, without a key, for /app and every path under it', async () => {
    const bodies: string[] = [];
    for (const url of [
      '/app',
      '/app/',
      '/app/requests',
      '/app/requests/4f11c0de-0000-4000-8000-000000000000',
      '/app/x/y',
    ]) {
      const page = await t.app.inject({ method: 'GET', url });
      expect([url, page.statusCode]).toEqual([url, 200]);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      bodies.push(page.body);
    }
    expect(new Set(bodies).size).toBe(1);
    const { script, style } = assetsOf(bodies[0]);
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    // Nothing from elsewhere, no inline script or style.
    expect(bodies[0]).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(bodies[0]).not.toMatch(/<script>|<style|style="/);
  });

  it('should send a policy with no unsafe-inline, no other origin, and blob: previews only in images, workers from Gather', async () => {
    const policy = String(
      (await t.app.inject({ method: 'GET', url: '/app/requests' })).headers['content-security-policy'],
    );
    const directives = Object.fromEntries(
      policy.split(/;\s*/).map((directive) => {
        const [name, ...values] = directive.split(' ');
        return [name, values];
      }),
    );
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy).not.toMatch(/https?:/);
    expect(directives).toMatchObject({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'connect-src': ["'self'"],
      'worker-src': ["'self'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
    });
  });

  it('should serve its script within 300 KB gzipped, and its stylesheet after the dashboard’s, cached for a year', async () => {
    const { script, style } = assetsOf((await t.app.inject({ method: 'GET', url: '/app' })).body);
    const js = await t.app.inject({ method: 'GET', url: script! });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gzipped = gzipSync(js.rawPayload, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(MAX_SCRIPT_GZIP_BYTES);
    // React's production build: its development warnings are not in the bundle.
    expect(js.body).not.toContain('Warning: Each child in a list should have a unique');
    // It speaks to /graphql only, with the session cookie, and sends the signed-out to /sign-in.
    expect(js.body).toContain('/graphql');
    expect(js.body).toContain('same-origin');
    expect(js.body).toContain('/sign-in?next=');
    const css = await t.app.inject({ method: 'GET', url: style! });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body.indexOf('The live dashboard')).toBeGreaterThanOrEqual(0);
    expect(css.body.indexOf('The live dashboard')).toBeLessThan(css.body.indexOf("The owner's console"));
  });

  it('should name the PDF preview’s script (pdf.js) and worker on its shell, apart from its own script', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/app' })).body;
    const script = /data-pdf-script="([^"]+)"/.exec(html)?.[1];
    const worker = /data-pdf-worker="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/app\/pdf-preview\/assets\/pdf-preview\.[\w-]+\.js$/);
    expect(worker).toMatch(/^\/app\/pdf-preview\/assets\/pdf\.worker\.[\w-]+\.mjs$/);
    for (const url of [script!, worker!]) {
      const asset = await t.app.inject({ method: 'GET', url });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    }
    expect((await t.app.inject({ method: 'GET', url: script! })).body).toContain('workerPort');
    // pdf.js is not in the console's own script (its budget).
    const own = await t.app.inject({ method: 'GET', url: assetsOf(html).script! });
    expect(own.body).not.toContain('workerPort');
  });

  it('should answer 404 for an asset it does not have', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/app/assets/console.nope.js' });
    expect(missing.statusCode).toBe(404);
  });

  it('should leave the API to its credentials: /graphql without one is still 401', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ viewer { id } }' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
