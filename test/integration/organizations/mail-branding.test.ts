import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { PNG, upload } from '../../support/files';
import { startSmtpServer } from '../../support/smtp';

// Every mail carries the organization's branding, as a real SMTP server receives it: the sender name
// as the From display name and in the signature, the logo, the button's colour, the support address.

async function drain(t: TestApp): Promise<void> {
  await t.app.jobs.runDue();
}

describe('branding in mail', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let tenant: Tenant;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } });
    tenant = await createTenant(t.db, 'Acme');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.received.length = 0;
  });

  it('should mail an invitation without branding as before', async () => {
    await createRequest(t.app, tenant.apiKey, { recipients: [{ email: 'ana@example.com' }] });
    await drain(t);
    const [{ mail }] = smtp.received;
    expect(mail.from?.value).toEqual([{ name: 'Gather', address: 'no-reply@gather.test' }]);
    expect(mail.html).toContain('background:#1f4fd1');
    expect(mail.html).not.toContain('<img');
    expect(mail.text).not.toContain('Questions?');
  });

  it("should carry the organization's sender name, logo, colour and support address", async () => {
    const org = `/organizations/${tenant.organizationId}`;
    await client(t.app, tenant.apiKey).patch(`${org}/branding`, {
      primary_color: '#0A7B3E',
      sender_name: 'Acme Tax Team',
      support_email: 'help@acme.test',
    });
    const logoUrl = (await upload(t.app, tenant.apiKey, `${org}/branding/logo`, PNG, { filename: 'logo.png' })).json()
      .logo_url;
    await createRequest(t.app, tenant.apiKey, { recipients: [{ email: 'ana@example.com' }] });
    await drain(t);
    const [{ mail }] = smtp.received;
    expect(mail.from?.value).toEqual([{ name: 'Acme Tax Team', address: 'no-reply@gather.test' }]);
    expect(mail.html).toContain(`<img src="${logoUrl}" alt="Acme Tax Team"`);
    expect(mail.html).toContain('background:#0a7b3e');
    expect(mail.html).toContain('<p>— Acme Tax Team</p>');
    expect(mail.html).toContain('<p>Questions? Write to help@acme.test</p>');
    expect(mail.text).toContain('— Acme Tax Team\n\nQuestions? Write to help@acme.test\n');
    // The logo the mail shows is served to anyone, as a mail client fetches it.
    const logo = await t.app.inject({ url: new URL(logoUrl).pathname });
    expect(logo.statusCode).toBe(200);
    expect(logo.rawPayload.equals(PNG)).toBe(true);
  });
});
