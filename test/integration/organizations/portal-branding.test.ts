import { createHash } from 'node:crypto';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { PNG, upload } from '../../support/files';
import { requestWithLink, signedIn } from '../../support/portal';

// The organization's branding and confirmation page as a recipient meets them: in the recipient API
// (REST and GraphQL) and on the portal page the server renders.

describe('branding and the confirmation page in the portal', () => {
  let t: TestApp;
  let tenant: Tenant;
  let logoPath: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Acme');
    const api = client(t.app, tenant.apiKey);
    const org = `/organizations/${tenant.organizationId}`;
    expect(
      (
        await api.patch(`${org}/branding`, {
          primary_color: '#0A7B3E',
          sender_name: 'Acme Tax Team',
          support_email: 'help@acme.test',
        })
      ).statusCode,
    ).toBe(200);
    logoPath = new URL(
      (await upload(t.app, tenant.apiKey, `${org}/branding/logo`, PNG, { filename: 'logo.png' })).json().logo_url,
    ).pathname;
    expect(
      (await api.post(`${org}/confirmation-page/enable`, { message: 'Thank you, Acme will call you within two days.' }))
        .statusCode,
    ).toBe(200);
  });
  afterAll(() => t.close());

  it('should carry the branding in the recipient view, and the confirmation only once submitted', async () => {
    const { token, items } = await requestWithLink(t.app, tenant.apiKey);
    const recipient = await signedIn(t.app, token);
    const before = (await recipient.request()).json();
    expect(before.branding).toEqual({
      primary_color: '#0a7b3e',
      sender_name: 'Acme Tax Team',
      support_email: 'help@acme.test',
      logo_url: expect.stringContaining(logoPath),
    });
    expect(before.confirmation).toBeNull();
    expect((await recipient.upload(items[0].id, PNG, 'w2.png')).statusCode).toBe(200);
    expect((await recipient.submit()).statusCode).toBe(200);
    const after = (await recipient.request()).json();
    expect(after.confirmation).toEqual({ message: 'Thank you, Acme will call you within two days.' });
    const graphql = await recipient.graphql(
      '{ recipientRequest { branding { primaryColor senderName supportEmail logoUrl } confirmation { message } } }',
    );
    expect(graphql.data.recipientRequest).toEqual({
      branding: {
        primaryColor: '#0a7b3e',
        senderName: 'Acme Tax Team',
        supportEmail: 'help@acme.test',
        logoUrl: before.branding.logo_url,
      },
      confirmation: { message: 'Thank you, Acme will call you within two days.' },
    });
  });

  it('should show the logo, the colour and the support address on the page, and the message after submitting', async () => {
    const { token, items } = await requestWithLink(t.app, tenant.apiKey);
    const page = await t.app.inject({ url: `/r/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<img class="logo" src="${logoPath}" alt="Acme logo">`);
    const css = ':root { --accent: #0a7b3e; }';
    expect(page.body).toContain(`<style>${css}</style>`);
    // Only that rule is allowed inline, by its hash.
    const hash = createHash('sha256').update(css).digest('base64');
    expect(page.headers['content-security-policy']).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(page.body).toContain('Questions? Write to <a href="mailto:help@acme.test">help@acme.test</a>');
    expect(page.body).not.toContain('Thank you, Acme will call you');
    // The logo loads from the page's own origin.
    expect((await t.app.inject({ url: logoPath })).statusCode).toBe(200);

    const cookie = String(page.headers['set-cookie']).split(';')[0];
    const recipient = await signedIn(t.app, token);
    await recipient.upload(items[0].id, PNG, 'w2.png');
    await recipient.submit();
    const submitted = await t.app.inject({ url: `/r/${token}`, headers: { cookie } });
    expect(submitted.body).toContain(
      '<h2 id="confirmation-title">Thank you</h2><p>Thank you, Acme will call you within two days.</p>',
    );
  });

  it('should show the logo, the colour and the support address on the sign-in page, before a session', async () => {
    const { token } = await requestWithLink(t.app, tenant.apiKey, {
      recipients: [{ email: 'ana@example.com', auth_method: 'EMAIL' }],
    });
    const info = await t.app.inject({ url: `/r/${token}/api` });
    expect(info.json().branding).toEqual({
      primary_color: '#0a7b3e',
      sender_name: 'Acme Tax Team',
      support_email: 'help@acme.test',
      logo_url: expect.stringContaining(logoPath),
    });
    const page = await t.app.inject({ url: `/r/${token}` });
    expect(page.body).toContain('We send a 6-digit code');
    expect(page.body).toContain(`<img class="logo" src="${logoPath}" alt="Acme logo">`);
    expect(page.body).toContain('<style>:root { --accent: #0a7b3e; }</style>');
    expect(page.body).toContain('mailto:help@acme.test');
  });

  it('should show neither once the organization disables the page, and the plain page without branding', async () => {
    const other = await createTenant(t.db, 'Plain');
    const { token } = await requestWithLink(t.app, other.apiKey);
    const page = await t.app.inject({ url: `/r/${token}` });
    expect(page.body).not.toContain('class="logo"');
    expect(page.body).not.toContain('<style>');
    expect(page.body).not.toContain('mailto:');
    expect(page.headers['content-security-policy']).toContain("style-src 'self';");

    await client(t.app, tenant.apiKey).post(`/organizations/${tenant.organizationId}/confirmation-page/disable`);
    const { token: acme, items } = await requestWithLink(t.app, tenant.apiKey);
    const recipient = await signedIn(t.app, acme);
    await recipient.upload(items[0].id, PNG, 'w2.png');
    await recipient.submit();
    expect((await recipient.request()).json().confirmation).toBeNull();
  });
});
