import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// GET /r/{token}: the portal page, rendered by the server from the recipient API's answers.

describe('GET /r/{token}', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const tokenOf = (created: { recipients: { request_link: string }[] }) =>
    new URL(created.recipients[0].request_link).pathname.split('/')[2];

  it('should open the request at once for a recipient without sign-in steps, with its session cookie', async () => {
    const created = await createRequest(t.app, tenant.apiKey, { personal_message: 'Hi <b>Ana</b>' });
    const page = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(String(page.headers['set-cookie'])).toContain('HttpOnly');
    expect(page.body).toContain('<html lang="en-US" dir="ltr">');
    expect(page.body).toContain('<h3><bdi>W-2</bdi></h3>');
    expect(page.body).toContain('Hi &lt;b&gt;Ana&lt;/b&gt;');
    expect(page.body).toContain('0 of 2 done');
  });

  it('should reuse the session the browser holds on every view of a link without sign-in steps, opened from a mail too', async () => {
    const created = await createRequest(t.app, tenant.apiKey);
    const url = `/r/${tokenOf(created)}`;
    // As a browser sends them: a link followed from another site (a webmail) carries no SameSite=Strict
    // cookie; a navigation from Gather's own page does.
    let cookie: string | undefined;
    const view = async (site: 'cross-site' | 'same-origin') => {
      const page = await t.app.inject({
        url,
        headers: { 'sec-fetch-site': site, ...(cookie && site === 'same-origin' ? { cookie } : {}) },
      });
      if (page.headers['set-cookie']) cookie = String(page.headers['set-cookie']).split(';')[0];
      return page;
    };
    for (let click = 0; click < 25; click++) {
      const opened = await view('cross-site');
      expect(opened.statusCode).toBe(200);
      // The page a cross-site view gets reloads itself, now same-site: the cookie comes along.
      if (opened.body.includes('http-equiv="refresh"'))
        expect((await view('same-origin')).body).toContain('<h3><bdi>W-2</bdi></h3>');
      expect((await view('same-origin')).body).toContain('<h3><bdi>W-2</bdi></h3>');
    }
    const [{ n }] = await t.db.rows<{ n: number }>(
      'select count(*)::int as n from recipient_session s join recipient rc on rc.id = s.recipient_id where rc.request_id = ?',
      [created.id],
    );
    expect(n).toBe(1);
  });

  it('should ask for a code, without showing the items, when the recipient signs in by email', async () => {
    const created = await createRequest(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Ana', email: 'ana@example.com', auth_method: 'EMAIL' }],
    });
    const page = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.body).toContain('We send a 6-digit code to a***@example.com.');
    expect(page.body).not.toContain('W-2');
    const verify = await t.app.inject({ url: `/r/${tokenOf(created)}/verify` });
    expect(verify.body).toMatch(/id="signin-code"[^>]*autofocus/);
  });

  it('should show the request with the cookie the API set at sign-in', async () => {
    const created = await createRequest(t.app, tenant.apiKey, {
      recipients: [{ email: 'ana@example.com', auth_method: 'EMAIL' }],
    });
    const token = tokenOf(created);
    const session = await t.app.inject({
      method: 'POST',
      url: `/r/${token}/api/session`,
      payload: { code: created.recipients[0].password },
    });
    expect(session.statusCode).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0];
    const page = await t.app.inject({ url: `/r/${token}`, headers: { cookie } });
    expect(page.body).toContain('<h3><bdi>W-2</bdi></h3>');
  });

  it('should show the due date', async () => {
    const created = await createRequest(t.app, tenant.apiKey, { due_date: '2027-01-15T17:00:00Z' });
    const page = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p class="due">Due January 15, 2027</p>');
  });

  it('should speak the request language', async () => {
    const created = await createRequest(t.app, tenant.apiKey, { language: 'es' });
    const page = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    expect(page.body).toContain('<html lang="es" dir="ltr">');
    expect(page.body).toContain('0 de 2 completados');
  });

  it('should answer an unknown link with a 404 page and a closed request with a 410 page', async () => {
    const unknown = await t.app.inject({ url: '/r/no-such-link', headers: { 'accept-language': 'es-MX,es;q=0.9' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('<h1>Enlace no encontrado</h1>');
    const created = await createRequest(t.app, tenant.apiKey);
    expect((await client(t.app, tenant.apiKey).post(`/requests/${created.id}/close`)).statusCode).toBe(200);
    const closed = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    expect(closed.statusCode).toBe(410);
    expect(closed.body).toContain('<h1>This request is closed</h1>');
  });

  it('should serve the page script and stylesheet under hashed names, cached for a year', async () => {
    const page = await t.app.inject({ url: '/r/no-such-link' });
    const style = /href="(\/r\/assets\/portal\.[\w-]+\.css)"/.exec(page.body)![1];
    const asset = await t.app.inject({ url: style });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.app.inject({ url: '/r/assets/portal.nope.js' })).statusCode).toBe(404);
  });

  it("should serve the signing view's script and pdf.js's worker apart, so the portal's script stays light", async () => {
    const created = await createRequest(t.app, tenant.apiKey);
    const page = await t.app.inject({ url: `/r/${tokenOf(created)}` });
    const boot = JSON.parse(/<script type="application\/json" id="portal-boot">(.*?)<\/script>/s.exec(page.body)![1]);
    expect(boot.signing).toEqual({
      script: expect.stringMatching(/^\/r\/signing\/assets\/signing\.[\w-]+\.js$/),
      worker: expect.stringMatching(/^\/r\/signing\/assets\/pdf\.worker\.[\w-]+\.mjs$/),
    });
    for (const path of [boot.signing.script, boot.signing.worker]) {
      const asset = await t.app.inject({ url: path });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    }
    // pdf.js is in the signing script alone: the page's own script (loaded on every view) has none of it.
    const script = /src="(\/r\/assets\/portal\.[\w-]+\.js)"/.exec(page.body)![1];
    const portal = (await t.app.inject({ url: script })).body;
    const signing = (await t.app.inject({ url: boot.signing.script })).body;
    expect(portal).not.toContain('GlobalWorkerOptions');
    expect(signing).toContain('GlobalWorkerOptions');
  });
});
