import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { client } from '../support/app';
import { multipart, pdfBytes } from '../support/files';
import { openContext, screenshot } from './support/browser';
import { mailedCode } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// A share's page in a phone-sized browser: the invitation's link from the mail, the sign-in with a
// mailed code (the portal's form and script against the share's API), the files listed with the
// organization's branding, a download by the page's own link (bytes equal), and the owner's log.

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('share page', () => {
  const world = useAppAndBrowser();

  it('should sign in with a mailed code, list the files with the branding and download them, logged', async () => {
    const { app } = world;
    const owner = client(app.app, app.tenant.apiKey);
    await owner.patch(`/organizations/${app.tenant.organizationId}/branding`, {
      primary_color: '#7a1fa2',
      sender_name: 'Acme Accounting',
      support_email: 'help@acme.test',
    });
    const created = await owner.post('/shares', {
      title: 'Your signed 2025 return',
      customMessage: 'Hello Mia, here are your signed return and the workpapers.',
      expirationDate: '2030-06-30T12:00:00Z',
      recipients: [{ email: 'mia@example.com', firstName: 'Mia', authMethod: { type: 'EMAIL_ACCESS_CODE' } }],
    });
    expect(created.statusCode).toBe(200);
    const share = created.json();
    const pdf = await pdfBytes('Signed return 2025');
    for (const [content, filename] of [
      [pdf, 'Signed return 2025.pdf'],
      ['Line 1: wages\nLine 2: interest\n', 'Workpapers.txt'],
    ] as const) {
      const { payload, headers } = multipart(content, { filename });
      const uploaded = await app.app.inject({
        method: 'POST',
        url: `/shares/${share.id}/files`,
        payload,
        headers: { ...headers, authorization: `Bearer ${app.tenant.apiKey}` },
      });
      expect(uploaded.statusCode).toBe(200);
    }
    const before = app.smtp.received.length;
    expect((await owner.post(`/shares/${share.id}/send`)).statusCode).toBe(200);

    // The invitation reaches the SMTP server with the link to follow.
    let link: string | undefined;
    for (
      const deadline = Date.now() + 15_000;
      !link && Date.now() < deadline;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      const mail = app.smtp.received.slice(before).find((m) => m.envelopeTo.includes('mia@example.com'));
      link = mail && /(http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]+)/.exec(mail.mail.text ?? '')?.[1];
    }
    expect(link).toBe(share.recipients[0].link);

    const { context, outside } = await openContext(world.browser, app.origin);
    const page = await context.newPage();
    const response = await page.goto(link!);
    expect(response!.status()).toBe(200);
    await expect(page.locator('#signin-title').textContent()).resolves.toBe('Sign in to see the files');
    await screenshot(page, 'share-01-sign-in');

    const sent = app.smtp.received.length;
    await page.getByRole('button', { name: 'Send code' }).click();
    const code = await mailedCode(app, 'mia@example.com', sent);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#files-title');
    await expect(page.locator('#files-title').textContent()).resolves.toBe('Files shared with you');
    expect(await page.locator('.files li').count()).toBe(2);
    await expect(page.locator('.due').textContent()).resolves.toBe('Available until June 30, 2030.');
    // The organization's colour is the page's accent, and its support address is shown.
    await expect(
      page.evaluate<string>("getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()"),
    ).resolves.toBe('#7a1fa2');
    await expect(page.locator('footer').textContent()).resolves.toContain('help@acme.test');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, 'share-02-files');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download Signed return 2025.pdf' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Signed return 2025.pdf');
    const path = await download.path();
    expect(sha256(readFileSync(path!))).toBe(sha256(pdf));

    const logged = (await owner.get(`/shares/${share.id}`)).json();
    expect(logged.downloads).toEqual([
      expect.objectContaining({
        recipientEmail: 'mia@example.com',
        fileName: 'Signed return 2025.pdf',
        size: pdf.length,
      }),
    ]);
    expect(logged.downloads[0].userAgent).toContain('Chrome');
    expect(outside).toEqual([]);
    await context.close();
  });
});
