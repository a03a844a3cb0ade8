import { CATALOGS, t as message } from '../../../src/i18n/i18n';
import { LANGUAGES, type Language } from '../../../src/modules/requests/request.enums';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { portal, requestWithLink } from '../../support/portal';
import { startSmtpServer } from '../../support/smtp';

// What a recipient reads, in each of the Language enum's languages: the invitation and the code mail as the
// real SMTP server receives them, the portal page (right to left for ar and he), and the language chosen on
// the page. The recipient's language comes first, then the request's, then the organization's default.

const RIGHT_TO_LEFT = ['ar', 'he'];

/**
 * English texts of the portal that a page in another language shows as an element's text (those that differ in
 * it), but the language list's own entry for English.
 */
const englishLeaks = (language: Language, html: string) => {
  const english = CATALOGS['en-US'].portal as Record<string, string>;
  const own = CATALOGS[language].portal as Record<string, string>;
  return Object.entries(english)
    .filter(([key, text]) => key !== 'languageName' && own[key] !== text && !/[{]/.test(text) && text.length > 3)
    .filter(([, text]) => html.includes(`>${text}<`))
    .map(([key]) => key);
};

describe('languages of what a recipient reads', () => {
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

  const mailsTo = async (address: string) => {
    await t.app.jobs.runDue();
    return smtp.received.filter((m) => m.envelopeTo.includes(address)).map((m) => m.mail);
  };

  const page = (token: string, headers: Record<string, string> = {}) => t.app.inject({ url: `/r/${token}`, headers });

  it.each(LANGUAGES.map((language) => [language]))(
    'should mail the invitation and the code in %s, and show the portal in it',
    async (language) => {
      const address = `ana.${language.toLowerCase()}@example.com`;
      const { token } = await requestWithLink(t.app, tenant.apiKey, {
        name: 'Documents 2026',
        language: 'en-US',
        due_date: '2026-12-15T17:00:00Z',
        recipients: [{ first_name: 'Ana', email: address, language, auth_method: 'EMAIL' }],
      });
      const info = (await portal(t.app, token).info()).json();
      expect((await portal(t.app, token).sendCode()).statusCode).toBe(200);
      const mails = await mailsTo(address);
      const codeSubject = message(language, 'mail.codeSubject', { request: 'Documents 2026' });
      const code = mails.find((mail) => mail.subject === codeSubject)!;
      const invitation = mails.find((mail) => mail !== code)!;
      expect(mails).toHaveLength(2);

      const dir = RIGHT_TO_LEFT.includes(language) ? 'rtl' : 'ltr';
      const names = { sender: info.request.owner_name, request: 'Documents 2026' };
      expect(invitation.subject).toBe(message(language, 'mail.invitationSubject', names));
      expect(invitation.text).toContain(message(language, 'mail.greeting', { name: 'Ana' }));
      expect(invitation.text).toContain(message(language, 'mail.openRequest'));
      expect(invitation.html).toContain(`<html lang="${language}" dir="${dir}">`);

      expect(code.text).toContain(message(language, 'mail.codeBody', { request: 'Documents 2026' }));
      expect(code.text).toMatch(/^\d{6}$/m);
      expect(code.text).toContain(message(language, 'mail.codeValid', { minutes: 10 }));

      const view = await page(token);
      expect(view.statusCode).toBe(200);
      expect(view.body).toContain(`<html lang="${language}" dir="${dir}">`);
      expect(view.body).toContain(CATALOGS[language].portal.signInTitle);
      if (language !== 'en-US') expect(englishLeaks(language, view.body)).toEqual([]);
    },
  );

  it("should take the recipient's language, then the request's, then the organization's default", async () => {
    const owner = client(t.app, tenant.apiKey);
    const langOf = async (overrides: Record<string, unknown>) => {
      const { token } = await requestWithLink(t.app, tenant.apiKey, overrides);
      return /<html lang="([^"]+)"/.exec((await page(token)).body)![1];
    };
    const recipient = (language?: string) => [
      { first_name: 'Bo', email: 'bo@example.com', ...(language && { language }) },
    ];
    expect(await langOf({ language: 'de', recipients: recipient('fr') })).toBe('fr');
    expect(await langOf({ language: 'de', recipients: recipient() })).toBe('de');
    const settings = await owner.patch(`/organizations/${tenant.organizationId}/settings`, { default_language: 'ko' });
    expect(settings.statusCode).toBe(200);
    try {
      expect(await langOf({ recipients: recipient() })).toBe('ko');
    } finally {
      await owner.patch(`/organizations/${tenant.organizationId}/settings`, { default_language: 'en-US' });
    }
  });

  it('should switch the page to the language the recipient picks, for the rest of the browser session', async () => {
    const created = await createRequest(t.app, tenant.apiKey, { language: 'es' });
    const token = new URL(created.recipients[0].request_link).pathname.split('/')[2];
    const first = await page(token);
    expect(first.body).toContain('<html lang="es" dir="ltr">');
    expect(first.body).toMatch(/<option value="zh" lang="zh"\s*>中文<\/option>/);
    const session = String(first.headers['set-cookie']).split(';')[0];

    const pick = await page(`${token}?lang=ar`, { cookie: session });
    expect(pick.statusCode).toBe(303);
    expect(pick.headers.location).toBe(`/r/${token}`);
    const chosen = String(pick.headers['set-cookie']);
    expect(chosen).toBe(`gather_language=ar; Path=/r/${token}; HttpOnly; SameSite=Lax`);

    const after = await page(token, { cookie: `${session}; ${chosen.split(';')[0]}` });
    expect(after.body).toContain('<html lang="ar" dir="rtl">');
    expect(after.body).toContain(message('ar', 'portal.progress', { done: 0, total: 2 }));
    expect(after.body).toMatch(/<option value="ar" lang="ar"\s+selected>العربية<\/option>/);
    // The API still answers the request's language; only the page follows the choice.
    expect((await portal(t.app, token).info()).json().request.language).toBe('es');

    // A language the service does not speak, or a list of them, changes nothing.
    for (const query of ['lang=ja', 'lang=fr&lang=de']) {
      const ignored = await page(`${token}?${query}`);
      expect(ignored.statusCode).toBe(303);
      expect(ignored.headers['set-cookie']).toBeUndefined();
    }
  });

  it('should answer the 404 page in the browser language, by quality', async () => {
    const unknown = await page('no-such-link', { 'accept-language': 'ja;q=0.9, he;q=0.8, en;q=0.1' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('<html lang="he" dir="rtl">');
    expect(unknown.body).toContain(`<h1>${CATALOGS.he.portal.notFoundTitle}</h1>`);
  });
});
