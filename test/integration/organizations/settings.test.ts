import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createUser } from '../../support/fixtures';
import { PNG, upload } from '../../support/files';
import { MAX_LOGO_BYTES } from '../../../src/modules/organizations/organization.limits';

// GET/PATCH /organizations/{org_id}/settings and /branding, the logo, and the confirmation page, on
// REST and GraphQL: defaults until changed, ADMIN-only writes, values checked.

describe('organization settings, branding and confirmation page', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let userKey: string;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp({}, {}, 'Acme'));
    userKey = (await createUser(t.app, tenant.apiKey, { email: 'user@acme.test', role: 'USER' })).apiKey;
  });
  afterAll(() => t.close());

  const path = (rest: string) => `/organizations/${tenant.organizationId}/${rest}`;

  it('should answer the defaults before anything is changed, to a USER too', async () => {
    const settings = await client(t.app, userKey).get(path('settings'));
    expect(settings.statusCode).toBe(200);
    expect(settings.json()).toEqual({
      default_expiration_days: null,
      default_reminders: 3,
      default_language: 'en-US',
      allowed_auth_methods: ['EMAIL', 'SMS', 'SECURITY_QUESTION', 'NONE'],
      require_complete_submission: false,
      retention_days: null,
    });
    const branding = await client(t.app, userKey).get(path('branding'));
    expect(branding.json()).toEqual({ primary_color: null, sender_name: null, support_email: null, logo_url: null });
  });

  it('should change settings (PATCH leaves absent fields alone, null clears) and read them back on GraphQL', async () => {
    const patched = await api.patch(path('settings'), {
      default_expiration_days: 30,
      default_language: 'es',
      allowed_auth_methods: ['EMAIL', 'NONE'],
      retention_days: 90,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      default_expiration_days: 30,
      default_reminders: 3,
      default_language: 'es',
      allowed_auth_methods: ['EMAIL', 'NONE'],
      retention_days: 90,
    });
    const cleared = await api.patch(path('settings'), {
      default_expiration_days: null,
      default_reminders: 5,
      require_complete_submission: true,
    });
    expect(cleared.json()).toEqual({
      default_expiration_days: null,
      default_reminders: 5,
      default_language: 'es',
      allowed_auth_methods: ['EMAIL', 'NONE'],
      require_complete_submission: true,
      retention_days: 90,
    });
    const read = await api.graphql(
      '{ organization { settings { defaultExpirationDays defaultReminders defaultLanguage allowedAuthMethods requireCompleteSubmission retentionDays } } }',
    );
    expect(read.data.organization.settings).toEqual({
      defaultExpirationDays: null,
      defaultReminders: 5,
      defaultLanguage: 'ES',
      allowedAuthMethods: ['EMAIL', 'NONE'],
      requireCompleteSubmission: true,
      retentionDays: 90,
    });
    await api.patch(path('settings'), {
      default_reminders: 3,
      default_language: 'en-US',
      allowed_auth_methods: ['EMAIL', 'SMS', 'SECURITY_QUESTION', 'NONE'],
      require_complete_submission: false,
      retention_days: null,
    });
  });

  it('should refuse bad settings with 422, and a USER with 403', async () => {
    const bad = await api.patch(path('settings'), { default_expiration_days: 0, allowed_auth_methods: [] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'default_expiration_days'],
        ['body', 'allowed_auth_methods'],
      ]),
    );
    const unset = await api.graphql(
      'mutation($id: ID!) { organizationSettingsUpdate(id: $id, input: { allowedAuthMethods: [UNSET] }) { settings { defaultReminders } userErrors { field code } } }',
      {
        id: tenant.organizationId,
      },
    );
    expect(unset.data.organizationSettingsUpdate).toEqual({
      settings: null,
      userErrors: [{ field: ['input', 'allowedAuthMethods', '0'], code: 'INVALID' }],
    });
    const user = await client(t.app, userKey).patch(path('settings'), { default_reminders: 1 });
    expect(user.statusCode).toBe(403);
    expect((await client(t.app, userKey).patch(path('branding'), { sender_name: 'X' })).statusCode).toBe(403);
    expect((await client(t.app, userKey).post(path('confirmation-page/disable'))).statusCode).toBe(403);
  });

  it('should change the branding and check the colour and the support address', async () => {
    const patched = await api.patch(path('branding'), {
      primary_color: '#0A7B3E',
      sender_name: ' Acme Tax Team ',
      support_email: 'help@acme.test',
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      primary_color: '#0a7b3e',
      sender_name: 'Acme Tax Team',
      support_email: 'help@acme.test',
      logo_url: null,
    });
    const bad = await api.patch(path('branding'), { primary_color: 'green', support_email: 'not an address' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([['body', 'primary_color']]),
    );
    const email = await api.patch(path('branding'), { support_email: 'not an address' });
    expect(email.statusCode).toBe(422);
    expect(email.json().detail[0].loc).toEqual(['body', 'support_email']);
    const graphql = await api.graphql(
      'mutation($id: ID!) { brandingUpdate(id: $id, input: { primaryColor: "#123" }) { branding { primaryColor } userErrors { field code } } }',
      { id: tenant.organizationId },
    );
    expect(graphql.data.brandingUpdate).toEqual({
      branding: null,
      userErrors: [{ field: ['input', 'primaryColor'], code: 'INVALID' }],
    });
  });

  it('should take a PNG logo and serve it publicly by a URL naming its content', async () => {
    const uploaded = await upload(t.app, tenant.apiKey, path('branding/logo'), PNG, {
      filename: 'logo.png',
      type: 'application/octet-stream',
    });
    expect(uploaded.statusCode).toBe(200);
    const { logo_url } = uploaded.json();
    expect(logo_url).toMatch(new RegExp(`/branding/${tenant.organizationId}/logo/[0-9a-f]{16}$`));
    const served = await t.app.inject({ url: new URL(logo_url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    expect((await api.get(path('branding'))).json().logo_url).toBe(logo_url);
  });

  it('should keep only the drawing of an SVG logo: no script, handler, external reference or foreignObject', async () => {
    const svg = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "boom">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(2)</script>
  <style>@import url(https://evil.test/x.css);</style>
  <foreignObject><iframe src="https://evil.test"/></foreignObject>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs>
  <rect width="10" height="10" fill="url(#g)" onclick="steal()" style="fill:url(https://evil.test/p)"/>
  <image href="https://evil.test/track.png"/>
  <use xlink:href="https://evil.test/sprite.svg#a"/>
  <use href="#g"/>
  <a href="javascript:alert(3)"><circle r="2" fill="url(https://evil.test/#x)"/></a>
  <text x="1" y="9">Acme &amp; Co</text>
</svg>`;
    const uploaded = await upload(t.app, tenant.apiKey, path('branding/logo'), svg, {
      filename: 'logo.svg',
      type: 'image/svg+xml',
    });
    expect(uploaded.statusCode).toBe(200);
    const served = await t.app.inject({ url: new URL(uploaded.json().logo_url).pathname });
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(served.body).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">' +
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs>' +
        '<rect width="10" height="10" fill="url(#g)"/><use/><use href="#g"/><text x="1" y="9">Acme &amp; Co</text></svg>',
    );
  });

  it('should refuse a logo that is not an image (415), too large (413), from a USER (403), and remove it with logo_url null', async () => {
    const text = await upload(t.app, tenant.apiKey, path('branding/logo'), 'just text', {
      filename: 'logo.png',
      type: 'image/png',
    });
    expect(text.statusCode).toBe(415);
    const html = await upload(t.app, tenant.apiKey, path('branding/logo'), '<html><body onload="x()"></body></html>', {
      filename: 'logo.svg',
      type: 'image/svg+xml',
    });
    expect(html.statusCode).toBe(415);
    const large = await upload(
      t.app,
      tenant.apiKey,
      path('branding/logo'),
      Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)]),
      { filename: 'big.png' },
    );
    expect(large.statusCode).toBe(413);
    expect((await upload(t.app, userKey, path('branding/logo'), PNG, { filename: 'logo.png' })).statusCode).toBe(403);
    const before = (await api.get(path('branding'))).json().logo_url;
    expect(before).not.toBeNull();
    const removed = await api.patch(path('branding'), { logo_url: null });
    expect(removed.json().logo_url).toBeNull();
    expect((await t.app.inject({ url: new URL(before).pathname })).statusCode).toBe(404);
  });

  it('should enable and disable the confirmation page on REST and GraphQL, keeping its message', async () => {
    const enabled = await api.post(path('confirmation-page/enable'), {
      message: 'Thank you! We will be in touch within two days.',
    });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toEqual({ enabled: true, message: 'Thank you! We will be in touch within two days.' });
    expect((await api.post(path('confirmation-page/enable'), { message: '' })).statusCode).toBe(422);
    const disabled = await api.post(path('confirmation-page/disable'));
    expect(disabled.json()).toEqual({ enabled: false, message: 'Thank you! We will be in touch within two days.' });
    const graphql = await api.graphql(
      'mutation($id: ID!) { confirmationPageEnable(id: $id, input: { message: "Merci" }) { confirmationPage { enabled message } userErrors { code } } }',
      {
        id: tenant.organizationId,
      },
    );
    expect(graphql.data.confirmationPageEnable).toEqual({
      confirmationPage: { enabled: true, message: 'Merci' },
      userErrors: [],
    });
    const read = await api.graphql('{ organization { confirmationPage { enabled message } } }');
    expect(read.data.organization.confirmationPage).toEqual({ enabled: true, message: 'Merci' });
  });
});
