import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';
import { subscribe, untilSubscribed, wsClient } from '../../support/ws';
import { createOrganization } from '../../../src/modules/identity/identity.service';
import { signInLinkForEmail } from '../../../src/modules/sessions/session.service';
import {
  SESSION_IDLE_HOURS,
  SESSION_MAX_DAYS,
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_LINK_MINUTES,
  SIGN_IN_LINKS_PER_EMAIL,
} from '../../../src/modules/sessions/session.limits';

// A user's sign-in in a browser, through the whole app: a link asked for, mailed through the notification outbox
// (kept there: no SMTP_URL), opened and used once; the session cookie then stands for the user on GraphQL over HTTP
// and WebSocket and on REST, from the service's own origin only. Timed rules are checked by moving the app's clock.

const ORIGIN = 'https://gather.test';
const HOUR = 3_600_000;
const SENT = { detail: 'If the address belongs to a user, a sign-in link is on its way' };

describe('sign-in by e-mail link', () => {
  let t: TestApp;
  let acme: Tenant;
  let globex: Tenant;
  let offsetMs = 0;
  let wsUrl: string;
  // Each call comes from an address of its own unless a test means one: the address limit is counted apart.
  let addresses = 0;
  const nextAddress = () => `10.1.${Math.floor(++addresses / 250)}.${addresses % 250}`;

  beforeAll(async () => {
    t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    acme = await createTenant(t.db, 'Acme');
    globex = await createTenant(t.db, 'Globex');
    await createUser(t.app, acme.apiKey, { email: 'Olivia@Acme.test', role: 'ADMIN', firstName: 'Olivia' });
    await createUser(t.app, acme.apiKey, { email: 'uma@acme.test', role: 'USER' });
    await createUser(t.app, globex.apiKey, { email: 'gus@globex.test', role: 'ADMIN' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    wsUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => t.close());
  // Each test counts its sign-ins from nothing (the limits are counted in the HTTP edge's table).
  beforeEach(() => t.orm.em.fork().execute('delete from rate_limit_counter'));
  afterEach(() => {
    offsetMs = 0;
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress = nextAddress()) =>
    t.app.inject({ method: 'POST', url, payload: payload as never, headers, remoteAddress });

  /** Asks for a link and reads it from the notification outbox (as the organization's admin reads it). */
  async function mailedLink(email: string, adminKey = acme.apiKey, extra: Record<string, unknown> = {}) {
    const asked = await post('/auth/sign-in', { email, ...extra });
    expect([asked.statusCode, asked.json()]).toEqual([202, SENT]);
    await t.app.jobs.runDue();
    const listed = await client(t.app, adminKey).get('/notifications?limit=100');
    if (listed.statusCode !== 200) throw new Error(listed.body);
    const kept = listed.json() as Array<{
      kind: string;
      address: string;
      status: string;
      subject: string;
      text: string;
    }>;
    const mail = kept.find((n) => n.kind === 'SIGN_IN_LINK' && n.address.toLowerCase() === email.toLowerCase());
    expect(mail).toMatchObject({ status: 'KEPT', subject: 'Your link to sign in to Gather' });
    const url = /https:\/\/gather\.test\/sign-in\/verify\?\S+/.exec(mail!.text)![0];
    return { url, token: new URL(url).searchParams.get('token')!, text: mail!.text };
  }

  const verify = (token: string, headers: Record<string, string> = { origin: ORIGIN }) =>
    post('/auth/verify', { token }, headers);

  /** A signed-in session's cookie, `gather_session=…`, as a browser sends it back. */
  async function signIn(email = 'olivia@acme.test', adminKey = acme.apiKey): Promise<string> {
    const { token } = await mailedLink(email, adminKey);
    const verified = await verify(token);
    expect(verified.statusCode).toBe(200);
    return String(verified.headers['set-cookie']).split(';')[0];
  }

  /** Calls with the cookie, from a page of the service (Origin: its public URL). */
  const browser = (cookie: string, origin: string | null = ORIGIN) => {
    const headers = { cookie, ...(origin ? { origin } : {}) };
    return {
      get: (url: string) => t.app.inject({ method: 'GET', url, headers }),
      post: (url: string, payload?: unknown) =>
        t.app.inject({ method: 'POST', url, payload: payload as never, headers }),
      graphql: (query: string, variables?: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: '/graphql', payload: { query, variables }, headers }),
    };
  };

  describe('the whole flow', () => {
    it('should mail a link that opens a page, then sign in with it and set an HttpOnly SameSite=Strict cookie', async () => {
      const { url, token, text } = await mailedLink('olivia@acme.test');
      expect(text).toContain('Hello Olivia,');
      expect(text).toContain(`It works once, within ${SIGN_IN_LINK_MINUTES} minutes.`);
      expect(token).toMatch(/^gsl_[A-Za-z0-9_-]{43}$/);

      // Opening the link spends nothing (mail scanners open links): it shows a button that posts the token.
      const page = await t.app.inject({ method: 'GET', url: url.replace(ORIGIN, '') });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(page.body).toContain('<form method="post" action="/auth/verify">');
      expect(page.body).toContain(`<input type="hidden" name="token" value="${token}">`);
      expect(page.body).not.toContain('<script');

      const verified = await verify(token);
      expect(verified.statusCode).toBe(200);
      const body = verified.json();
      expect(body).toEqual({
        user: {
          id: expect.any(String),
          email: 'Olivia@Acme.test',
          first_name: 'Olivia',
          last_name: null,
          role: 'ADMIN',
        },
        expires_at: expect.any(String),
      });
      const idle = new Date(body.expires_at).getTime() - t.app.contexts.settings.clock.now().getTime();
      expect(Math.abs(idle - SESSION_IDLE_HOURS * HOUR)).toBeLessThan(60_000);
      expect(verified.headers['set-cookie']).toMatch(
        new RegExp(
          `^gather_session=gus_[A-Za-z0-9_-]{43}; Path=/; Max-Age=${SESSION_MAX_DAYS * 86_400}; HttpOnly; SameSite=Strict; Secure$`,
        ),
      );
      // Only hashes are kept: neither token is in any table.
      const cookie = String(verified.headers['set-cookie']).split(';')[0];
      const stored = JSON.stringify(await t.orm.em.fork().execute('select * from user_session'));
      expect(stored).not.toContain(cookie.slice('gather_session='.length));
      expect(JSON.stringify(await t.orm.em.fork().execute('select * from sign_in_link'))).not.toContain(token);
    });

    it('should answer GET /auth/session, GraphQL, REST and graphql-ws as the user, with its role', async () => {
      const cookie = await signIn();
      const me = browser(cookie);
      const session = await me.get('/auth/session');
      expect(session.statusCode).toBe(200);
      expect(session.json()).toEqual({
        user: expect.objectContaining({ email: 'Olivia@Acme.test', role: 'ADMIN' }),
        organization: { id: acme.organizationId, name: 'Acme' },
        expires_at: expect.any(String),
      });

      const viewer = await me.graphql('{ viewer { email role } organization { name } }');
      expect(viewer.json()).toEqual({
        data: { viewer: { email: 'Olivia@Acme.test', role: 'ADMIN' }, organization: { name: 'Acme' } },
      });
      const whoami = await me.get('/whoami');
      expect(whoami.json()).toMatchObject({ email: 'Olivia@Acme.test', organization_name: 'Acme', role: 'ADMIN' });
      // A write, from the service's own page.
      const created = await me.post('/requests', {
        name: 'From the console',
        items: [{ type: 'UPLOAD', name: 'W-2' }],
        recipients: [{ email: 'ana@example.com' }],
      });
      expect(created.statusCode).toBe(200);

      // A USER's session is a USER: what its role may not do, it may not do.
      const uma = browser(await signIn('uma@acme.test'));
      const forbidden = await uma.graphql('mutation { teamCreate(input: { name: "Nope" }) { team { id } } }');
      expect(forbidden.json().errors[0].extensions.code).toBe('FORBIDDEN');

      // graphql-ws: the cookie rides on the handshake from the service's own origin; no connection_init key.
      const { client: ws } = wsClient(wsUrl, undefined, { headers: { cookie }, origin: ORIGIN });
      try {
        const events = subscribe(ws, 'subscription { requestCreated { name owner { email } } }');
        await untilSubscribed(() => t.app.subscriptions.subscriberCount, 1);
        await createRequest(t.app, acme.apiKey, { name: 'Seen live' });
        expect((await events.next()).data).toEqual({
          requestCreated: { name: 'Seen live', owner: { email: expect.stringMatching(/@example\.com$/) } },
        });
        // Another organization's events do not reach it.
        await createRequest(t.app, globex.apiKey, { name: 'Not for Acme' });
        await createRequest(t.app, acme.apiKey, { name: 'Next for Acme' });
        expect((await events.next()).data?.requestCreated.name).toBe('Next for Acme');
      } finally {
        await ws.dispose();
      }
    });

    it('should go to the console (or `next`) by 303 when the pages post their forms', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };
      const signInPage = await t.app.inject({ method: 'GET', url: '/sign-in?next=/app/requests/42' });
      expect(signInPage.statusCode).toBe(200);
      expect(signInPage.headers['content-security-policy']).toContain("script-src 'self'");
      expect(signInPage.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(signInPage.body).toContain('<form method="post" action="/auth/sign-in">');
      expect(signInPage.body).toContain('<input type="hidden" name="next" value="/app/requests/42">');
      expect(signInPage.body).toContain('<label for="email">E-mail address</label>');

      const asked = await post('/auth/sign-in', 'email=olivia%40acme.test&next=%2Fapp%2Frequests%2F42', form);
      expect(asked.statusCode).toBe(303);
      expect(asked.headers.location).toBe('/sign-in?sent=1&next=%2Fapp%2Frequests%2F42');
      const sentPage = await t.app.inject({ method: 'GET', url: asked.headers.location as string });
      expect(sentPage.body).toContain('If the address belongs to a user, a sign-in link is on its way.');

      await t.app.jobs.runDue();
      const kept = (await client(t.app, acme.apiKey).get('/notifications?limit=100')).json() as Array<{
        kind: string;
        text: string;
      }>;
      const link = new URL(
        /https:\/\/gather\.test\/sign-in\/verify\?\S+/.exec(kept.find((n) => n.kind === 'SIGN_IN_LINK')!.text)![0],
      );
      expect(link.searchParams.get('next')).toBe('/app/requests/42');
      const page = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(page.body).toContain('<input type="hidden" name="next" value="/app/requests/42">');

      const verified = await post(
        '/auth/verify',
        `token=${link.searchParams.get('token')}&next=${encodeURIComponent('/app/requests/42')}`,
        form,
      );
      expect(verified.statusCode).toBe(303);
      expect(verified.headers.location).toBe('/app/requests/42');
      expect(verified.headers['set-cookie']).toMatch(/^gather_session=gus_/);

      // Spent: the form says so, and leads to a new link.
      const again = await post('/auth/verify', `token=${link.searchParams.get('token')}`, form);
      expect(again.statusCode).toBe(401);
      expect(again.headers['content-type']).toContain('text/html');
      expect(again.body).toContain('This sign-in link does not work');
      expect(again.body).toContain('href="/sign-in"');
    });

    it('should keep `next` to the console: another origin is refused by the API and ignored by the page', async () => {
      for (const next of ['https://evil.test/app', '//evil.test/app', '/app\\evil', '/admin'])
        expect((await post('/auth/sign-in', { email: 'olivia@acme.test', next })).statusCode).toBe(422);
      const page = await t.app.inject({ method: 'GET', url: '/sign-in?next=//evil.test/app' });
      expect(page.body).not.toContain('evil');
      const verifyPage = await t.app.inject({
        method: 'GET',
        url: '/sign-in/verify?token=gsl_x&next=https://evil.test',
      });
      expect(verifyPage.body).not.toContain('evil');
    });

    it('should print a working link with the CLI function on a machine without mail', async () => {
      // (test/integration/cli.test.ts runs the command itself.)
      const made = await signInLinkForEmail(t.db, t.app.contexts.settings, 'OLIVIA@acme.test', '/app/x');
      expect(made.url).toMatch(
        /^https:\/\/gather\.test\/sign-in\/verify\?token=gsl_[A-Za-z0-9_-]{43}&next=%2Fapp%2Fx$/,
      );
      expect((await verify(new URL(made.url).searchParams.get('token')!)).statusCode).toBe(200);
    });
  });

  describe('links', () => {
    it('should take JSON labelled as a form (`curl -d`) as JSON, and answer JSON', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const asked = await post('/auth/sign-in', JSON.stringify({ email: 'olivia@acme.test' }), form);
      expect([asked.statusCode, asked.json()]).toEqual([202, SENT]);
      const bad = await post('/auth/verify', '{"token": ', form);
      expect(bad.statusCode).toBe(400);
    });

    it('should work once', async () => {
      const { token } = await mailedLink('olivia@acme.test');
      expect((await verify(token)).statusCode).toBe(200);
      const again = await verify(token);
      expect(again.statusCode).toBe(401);
      expect(again.json()).toEqual({
        detail: 'This sign-in link is not valid: it was used, or it expired. Ask for a new one.',
      });
      expect(again.headers['set-cookie']).toBeUndefined();
    });

    it(`should expire after ${SIGN_IN_LINK_MINUTES} minutes`, async () => {
      const first = await mailedLink('olivia@acme.test');
      offsetMs = SIGN_IN_LINK_MINUTES * 60_000 - 30_000;
      expect((await verify(first.token)).statusCode).toBe(200);
      offsetMs = 0;
      const second = await mailedLink('olivia@acme.test');
      offsetMs = SIGN_IN_LINK_MINUTES * 60_000 + 1000;
      expect((await verify(second.token)).statusCode).toBe(401);
    });

    it('should answer an unknown address exactly as a known one, and mail nothing', async () => {
      const known = await post('/auth/sign-in', { email: 'olivia@acme.test' });
      const unknown = await post('/auth/sign-in', { email: 'nobody@acme.test' });
      expect([unknown.statusCode, unknown.body]).toEqual([known.statusCode, known.body]);
      expect(unknown.headers['set-cookie']).toBeUndefined();
      await t.app.jobs.runDue();
      const rows = await t.orm.em
        .fork()
        .execute(`select count(*)::int as n from notification where address = 'nobody@acme.test'`);
      expect(rows[0].n).toBe(0);
      // A made-up token is refused as a spent one is.
      const made = await verify('gsl_' + 'A'.repeat(43));
      expect(made.json()).toEqual({
        detail: 'This sign-in link is not valid: it was used, or it expired. Ask for a new one.',
      });
      // A malformed address is a 422 whoever asks.
      const bad = await post('/auth/sign-in', { email: 'not an address' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().detail[0].loc).toEqual(['body', 'email']);
    });
  });

  describe('limits', () => {
    it(`should answer 429 past ${SIGN_IN_LINKS_PER_EMAIL} links per e-mail, whether or not it is a user's`, async () => {
      for (const email of ['uma@acme.test', 'ghost@acme.test']) {
        for (let i = 0; i < SIGN_IN_LINKS_PER_EMAIL; i++)
          expect((await post('/auth/sign-in', { email: i % 2 ? email.toUpperCase() : email })).statusCode).toBe(202);
        const over = await post('/auth/sign-in', { email });
        expect(over.statusCode).toBe(429);
        expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
        expect(over.json()).toEqual({ detail: 'Too many sign-in attempts; try again later' });
      }
      // Another address is counted apart.
      expect((await post('/auth/sign-in', { email: 'gus@globex.test' })).statusCode).toBe(202);
    });

    it(`should answer 429 past ${SIGN_IN_ATTEMPTS_PER_ADDRESS} calls from one address, links used or asked for`, async () => {
      const address = '10.9.9.9';
      for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS - 1; i++)
        expect((await post('/auth/sign-in', { email: `visitor${i}@acme.test` }, {}, address)).statusCode).toBe(202);
      expect((await post('/auth/verify', { token: 'gsl_guess' }, {}, address)).statusCode).toBe(401);
      const over = await post('/auth/verify', { token: 'gsl_guess' }, {}, address);
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      const form = await post(
        '/auth/sign-in',
        'email=olivia%40acme.test',
        {
          'content-type': 'application/x-www-form-urlencoded',
        },
        address,
      );
      expect(form.statusCode).toBe(429);
      expect(form.body).toContain('Too many attempts.');
      // Another address goes on.
      expect((await post('/auth/sign-in', { email: 'olivia@acme.test' })).statusCode).toBe(202);
    });
  });

  describe('sessions', () => {
    it(`should slide ${SESSION_IDLE_HOURS} hours with each use and end ${SESSION_MAX_DAYS} days after the sign-in`, async () => {
      const me = browser(await signIn(), null);
      offsetMs = (SESSION_IDLE_HOURS - 1) * HOUR;
      expect((await me.get('/whoami')).statusCode).toBe(200);
      offsetMs += (SESSION_IDLE_HOURS - 1) * HOUR;
      expect((await me.get('/whoami')).statusCode).toBe(200);
      offsetMs += SESSION_IDLE_HOURS * HOUR + 1000;
      expect((await me.get('/whoami')).statusCode).toBe(401);

      offsetMs = 0;
      const kept = browser(await signIn(), null);
      for (offsetMs = 0; offsetMs < SESSION_MAX_DAYS * 24 * HOUR - SESSION_IDLE_HOURS * HOUR; offsetMs += 11 * HOUR)
        expect((await kept.get('/auth/session')).statusCode).toBe(200);
      offsetMs = SESSION_MAX_DAYS * 24 * HOUR + 1000;
      const ended = await kept.get('/auth/session');
      expect([ended.statusCode, ended.json()]).toEqual([401, { detail: 'Not signed in' }]);
    });

    it("should sign out one session, or every session of the user, and leave others' alone", async () => {
      const [laptop, phone, tablet] = [await signIn(), await signIn(), await signIn()];
      const uma = await signIn('uma@acme.test');
      const out = await browser(laptop).post('/auth/sign-out');
      expect(out.statusCode).toBe(204);
      expect(out.headers['set-cookie']).toBe('gather_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure');
      expect((await browser(laptop).get('/whoami')).statusCode).toBe(401);
      expect((await browser(phone).get('/whoami')).statusCode).toBe(200);

      expect((await browser(phone).post('/auth/sign-out', { everywhere: true })).statusCode).toBe(204);
      for (const cookie of [phone, tablet]) expect((await browser(cookie).get('/whoami')).statusCode).toBe(401);
      expect((await browser(uma).get('/whoami')).statusCode).toBe(200);
      // Signed out already, or never signed in: nothing to end, the cookie cleared all the same.
      expect((await browser(phone).post('/auth/sign-out')).statusCode).toBe(204);
      expect((await t.app.inject({ method: 'POST', url: '/auth/sign-out' })).statusCode).toBe(204);
    });

    it("should let a signed-in owner open a recipient's link in the same browser", async () => {
      const cookie = await signIn();
      const request = await createRequest(t.app, acme.apiKey, {
        name: 'Owner preview',
        recipients: [{ first_name: 'Ana', email: 'ana@example.com', auth_method: { type: 'NONE' } }],
      });
      const path = new URL(request.recipients[0].request_link).pathname;
      const portal = await t.app.inject({ method: 'GET', url: path, headers: { cookie } });
      expect(portal.statusCode).toBe(200);
      expect(String(portal.headers['set-cookie'])).toMatch(/^gather_session=grs_/);
      expect(portal.body).toContain('W-2');
      // Both cookies reach the link's paths: the portal takes its own.
      const both = `${String(portal.headers['set-cookie']).split(';')[0]}; ${cookie}`;
      const view = await t.app.inject({ method: 'GET', url: `${path}/api/request`, headers: { cookie: both } });
      expect(view.statusCode).toBe(200);
    });
  });

  describe('cross-site requests', () => {
    it('should refuse a cookie call that changes something without the service’s own Origin (403), and take it with', async () => {
      const cookie = await signIn();
      const query = { query: '{ viewer { id } }' };
      for (const origin of [null, 'https://evil.test', 'http://gather.test', 'null']) {
        const headers: Record<string, string> = { cookie, ...(origin ? { origin } : {}) };
        const graphql = await t.app.inject({ method: 'POST', url: '/graphql', payload: query, headers });
        expect(graphql.statusCode).toBe(403);
        expect(graphql.json()).toEqual({
          data: null,
          errors: [{ message: 'Cross-site request refused', extensions: { code: 'FORBIDDEN' } }],
        });
        const rest = await t.app.inject({ method: 'POST', url: '/requests', payload: {}, headers });
        expect([rest.statusCode, rest.json()]).toEqual([403, { detail: 'Cross-site request refused' }]);
        const out = await t.app.inject({ method: 'POST', url: '/auth/sign-out', headers });
        expect(out.statusCode).toBe(403);
      }
      // Still signed in; GET and HEAD need no Origin.
      expect((await browser(cookie, null).get('/whoami')).statusCode).toBe(200);
      expect(
        (await t.app.inject({ method: 'GET', url: '/graphql?query={viewer{id}}', headers: { cookie } })).statusCode,
      ).toBe(200);
      // GET carries no mutation: GraphQL over GET reads only.
      const byGet = await t.app.inject({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent('mutation { teamCreate(input: { name: "Via GET" }) { team { id } } }')}`,
        headers: { cookie },
      });
      expect(byGet.statusCode).toBeGreaterThanOrEqual(400);
      expect(
        JSON.stringify((await browser(cookie).graphql('{ organization { teams { name } } }')).json()),
      ).not.toContain('Via GET');
      // The service's own origin: its public URL, or the address the call came to.
      expect((await browser(cookie).graphql('{ viewer { id } }')).statusCode).toBe(200);
      const byHost = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        payload: query,
        headers: { cookie, host: 'gather.internal:3000', origin: 'http://gather.internal:3000' },
      });
      expect(byHost.statusCode).toBe(200);
      // An API key needs no Origin: integrations are unchanged.
      expect((await client(t.app, acme.apiKey).post('/graphql', query)).statusCode).toBe(200);
    });

    it("should refuse a sign-in posted from another site's page", async () => {
      const { token } = await mailedLink('olivia@acme.test');
      expect((await verify(token, { origin: 'https://evil.test' })).statusCode).toBe(403);
      expect(
        (await post('/auth/sign-in', { email: 'olivia@acme.test' }, { origin: 'https://evil.test' })).statusCode,
      ).toBe(403);
      // Not spent by the refusal.
      expect((await verify(token)).statusCode).toBe(200);
    });

    it('should refuse a WebSocket handshake with the cookie from another origin or none (403)', async () => {
      const cookie = await signIn();
      for (const origin of ['https://evil.test', undefined]) {
        const status = await new Promise<number>((resolve, reject) => {
          const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { headers: { cookie }, origin });
          socket.on('unexpected-response', (_request, response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk));
            response.on('end', () => {
              expect(JSON.parse(body)).toEqual({ detail: 'Cross-site request refused' });
              resolve(response.statusCode!);
            });
          });
          socket.on('open', () => reject(new Error('opened')));
          socket.on('error', () => undefined);
        });
        expect(status).toBe(403);
      }
      // Without the cookie, a key in connection_init works from anywhere, as before.
      const { client: ws } = wsClient(
        wsUrl,
        { authorization: `Bearer ${acme.apiKey}` },
        { origin: 'https://evil.test' },
      );
      try {
        const events = subscribe(ws, 'subscription { requestCreated { name } }');
        await untilSubscribed(() => t.app.subscriptions.subscriberCount, 1);
        await createRequest(t.app, acme.apiKey, { name: 'Keyed' });
        expect((await events.next()).data).toEqual({ requestCreated: { name: 'Keyed' } });
      } finally {
        await ws.dispose();
      }
    });
  });

  describe('the cookie over plain http', () => {
    it('should be Secure in production and not in development', async () => {
      for (const production of [true, false]) {
        const other = await createTestApp({ production, publicUrl: 'http://localhost:3000' });
        try {
          await createOrganizationWithAdmin(other);
          const cookie = await signInOn(other);
          expect(cookie.endsWith('; Secure')).toBe(production);
        } finally {
          await other.close();
        }
      }
    });
  });
});

async function createOrganizationWithAdmin(t: TestApp) {
  await createOrganization(t.db, { name: 'Plain', adminEmail: 'plain@plain.test' });
}

async function signInOn(t: TestApp): Promise<string> {
  const { url } = await signInLinkForEmail(t.db, t.app.contexts.settings, 'plain@plain.test');
  const verified = await t.app.inject({
    method: 'POST',
    url: '/auth/verify',
    payload: { token: new URL(url).searchParams.get('token') },
  });
  return String(verified.headers['set-cookie']);
}
