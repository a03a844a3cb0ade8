import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { fromBuffer, type Entry } from 'yauzl';
import { client } from '../support/app';
import { createContract, pdfBytes, upload } from '../support/files';
import { eventually } from '../support/fixtures';
import { ARTIFACTS, openContext, screenshot } from './support/browser';
import { createPortalRequest, mailedCode } from './support/recipient';
import { useAppAndBrowser, type ListeningApp } from './support/server';

// Issue 10, "Done means": a recipient on a phone signs in with a mailed code, uploads a file whose
// connection drops half-way (it continues from the server's offset), answers, fills in a form (issue
// 12), draws a signature and submits; the owner rejects one item, the recipient redoes it, the owner verifies and
// downloads the zip, whose signed PDF pdfsig validates.

const run = promisify(execFile);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every entry of a zip, by name. */
function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    fromBuffer(zip, { lazyEntries: true }, (err, archive) => {
      if (err || !archive) return reject(err);
      const entries = new Map<string, Buffer>();
      archive.on('entry', (entry: Entry) => {
        archive.openReadStream(entry, (openErr, stream) => {
          if (openErr || !stream) return reject(openErr);
          const chunks: Buffer[] = [];
          stream
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => {
              entries.set(entry.fileName, Buffer.concat(chunks));
              archive.readEntry();
            });
        });
      });
      archive.on('end', () => resolve(entries));
      archive.on('error', reject);
      archive.readEntry();
    });
  });
}

/** The highest percentage the upload rows of an item show. */
async function uploadPercent(page: Page, itemId: string): Promise<number> {
  const text = (await page.locator(`#uploads-${itemId}`).textContent()) ?? '';
  return Math.max(0, ...[...text.matchAll(/(\d+)\s?%/g)].map((m) => Number(m[1])));
}

describe('the recipient walk on a phone', () => {
  const world = useAppAndBrowser();
  let app: ListeningApp;
  let context: BrowserContext;
  let page: Page;
  let created: Awaited<ReturnType<typeof createPortalRequest>>;
  const files = mkdtempSync(join(tmpdir(), 'gather-e2e-'));
  const itemOf = (name: string) => created.items.find((i) => i.name === name)!.id;
  /** The tus PATCH requests the page sent, with the offset each started at. */
  const patches: number[] = [];
  /** The owner's file for the passport item. */
  let guide: Buffer;
  /** What the recipient sends for it, before and after the owner asks again. */
  const scan = randomBytes(3 * 1024 * 1024);
  const sharp = randomBytes(64 * 1024);

  beforeAll(async () => {
    app = world.app;
    const contract = await createContract(app.app, app.tenant.apiKey, 'Employment contract.pdf');
    const fields = await client(app.app, app.tenant.apiKey).patch(`/contracts/${contract.id}`, {
      fields: [
        {
          id: 'title',
          type: 'text',
          placeholder: 'Job title',
          assigned_to: { email: 'ana@example.com' },
          layout: {
            page: 1,
            position: { offset_x: 40, offset_y: 120, anchor_point: 'TOP_LEFT' },
            style: { width: 200, height: 20 },
          },
        },
        {
          id: 'sig',
          type: 'signature',
          placeholder: 'Sign here',
          assigned_to: { email: 'ana@example.com' },
          layout: {
            page: 1,
            position: { offset_x: 40, offset_y: 40, anchor_point: 'BOTTOM_RIGHT' },
            style: { width: 200, height: 40 },
          },
        },
      ],
    });
    expect(fields.statusCode).toBe(200);
    const form = await client(app.app, app.tenant.apiKey).post('/forms', {
      name: 'Client details',
      fields: {
        Employer: { default_value: 'Acme Accounting', read_only: true },
        'Full name': { default_value: 'Ana Diaz' },
        'Tax ID': {},
      },
    });
    expect(form.statusCode).toBe(200);
    created = await createPortalRequest(app, {
      name: 'Onboarding documents',
      personal_message: 'Welcome aboard! Please send these before your first day.',
      due_date: '2027-01-15T17:00:00Z',
      items: [
        { name: 'Passport', type: 'UPLOAD', description: 'The photo page', required: true },
        { name: 'Start date?', type: 'QUESTION', required: true },
        { name: 'Your details', type: 'UPLOAD', required: true, form: { id: form.json().id } },
        { name: 'Employment contract', type: 'E_SIGNATURE', contractId: contract.id, required: true },
        { name: 'Driving licence', type: 'UPLOAD', required: false },
      ],
      recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', auth_method: { type: 'EMAIL' } }],
    });
    guide = await pdfBytes('How to scan');
    const attached = await upload(
      app.app,
      app.tenant.apiKey,
      `/requests/${created.id}/items/${itemOf('Passport')}/attachments`,
      guide,
      {
        filename: 'How to scan.pdf',
        type: 'application/pdf',
      },
    );
    expect(attached.statusCode).toBe(200);
    ({ context } = await openContext(world.browser, app.origin));
    page = await context.newPage();
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && request.url().includes('/api/uploads/'))
        patches.push(Number(request.headers()['upload-offset']));
    });
  });
  afterAll(() => rmSync(files, { recursive: true, force: true }));

  it('should sign in with the code mailed to the recipient', async () => {
    await page.goto(created.recipients[0].request_link);
    await screenshot(page, 'walk-01-sign-in');
    const mailsBefore = app.smtp.received.length;
    await page.getByRole('button', { name: 'Send code' }).click();
    const code = await mailedCode(app, 'ana@example.com', mailsBefore);
    await page.locator('#signin-code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#checklist-title').waitFor();
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 of 5 done');
    await screenshot(page, 'walk-02-request');
    // The owner's file for the item downloads with the recipient's session.
    const link = page.getByRole('link', { name: 'Download How to scan.pdf' });
    const download = await page.request.get(new URL((await link.getAttribute('href'))!, app.origin).toString());
    expect(download.status()).toBe(200);
    expect(sha256(await download.body())).toBe(sha256(guide));
  });

  it('should continue an upload from where its connection dropped', async () => {
    const passport = itemOf('Passport');
    const path = join(files, 'passport-scan.bin');
    writeFileSync(path, scan);
    // A slow line, so the upload is still running when the connection goes.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 512 * 1024,
    });
    await page.locator(`#file-${passport}`).setInputFiles(path);
    await eventually(async () => (await uploadPercent(page, passport)) >= 20, 30_000);
    // The phone loses its network: the browser goes offline and the connection under the upload breaks.
    await context.setOffline(true);
    app.app.server.closeAllConnections();
    await page.locator(`#uploads-${passport} button`).waitFor();
    await screenshot(page, 'walk-03-upload-dropped');

    // Back online, the page continues by itself (the button does the same at once).
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await context.setOffline(false);
    await page.locator(`#item-${passport}[data-status="COMPLETE"]`).waitFor({ timeout: 60_000 });
    // The upload went on from a byte the server already had, not from the start.
    expect(patches[0]).toBe(0);
    expect(patches.at(-1)).toBeGreaterThan(0);
    await screenshot(page, 'walk-04-uploaded');

    const documents = await client(app.app, app.tenant.apiKey).get(
      `/requests/${created.id}/items/${passport}/documents`,
    );
    const [document] = documents.json() as { id: string }[];
    const stored = await client(app.app, app.tenant.apiKey).get(`/documents/${document.id}/download`);
    expect(sha256(stored.rawPayload)).toBe(sha256(scan));
  });

  it('should save an answer', async () => {
    const question = itemOf('Start date?');
    await page.locator(`#answer-${question}`).fill('The 2nd of January');
    await page.locator(`#save-${question}`).click();
    await page.locator(`#item-${question}[data-status="COMPLETE"]`).waitFor();
  });

  it('should fill in the form: its read-only field shown and fixed, its defaults filled in', async () => {
    const details = itemOf('Your details');
    const [employer, name, taxId] = [0, 1, 2].map((i) => page.locator(`#form-${details}-${i}`));
    await employer.scrollIntoViewIfNeeded();
    await expect(employer.inputValue()).resolves.toBe('Acme Accounting');
    await expect(employer.isEditable()).resolves.toBe(false);
    await expect(name.inputValue()).resolves.toBe('Ana Diaz');
    await taxId.fill('123-45-6789');
    await screenshot(page, 'walk-04b-form');
    await page.locator(`#save-form-${details}`).click();
    await page.locator(`#item-${details}[data-status="COMPLETE"]`).waitFor();
    const item = await client(app.app, app.tenant.apiKey).get(`/requests/${created.id}/items/${details}`);
    expect(item.json().form_answers).toEqual({
      Employer: 'Acme Accounting',
      'Full name': 'Ana Diaz',
      'Tax ID': '123-45-6789',
    });
  });

  it('should sign the contract with a signature drawn on the screen', async () => {
    const contract = itemOf('Employment contract');
    await page.locator(`#field-${contract}-title`).fill('Accountant');
    await page.locator(`label[for="sig-${contract}-drawn"]`).click();
    const pad = page.locator(`canvas.pad[data-item="${contract}"]`);
    await pad.scrollIntoViewIfNeeded();
    const box = (await pad.boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + box.height * 0.55);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++)
      await page.mouse.move(
        box.x + 20 + i * ((box.width - 40) / 20),
        box.y + box.height * (0.55 - 0.3 * Math.sin(i / 3)),
      );
    await page.mouse.up();
    const inked = `(() => { const c = document.querySelector('canvas.pad[data-item="${contract}"]');
      return c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0); })()`;
    expect(await page.evaluate<boolean>(inked)).toBe(true);
    await screenshot(page, 'walk-05-drawn-signature');
    await page.locator(`#sign-${contract}`).click();
    await page.locator(`#item-${contract}[data-status="COMPLETE"]`).waitFor();
  });

  it('should mark the optional item not applicable', async () => {
    const licence = itemOf('Driving licence');
    await page.locator(`label[for="na-${licence}"]`).click();
    await page.locator(`#item-${licence}[data-status="COMPLETE"] #na-${licence}:checked`).waitFor();
    await expect(page.locator('#progress').textContent()).resolves.toBe('5 of 5 done');
  });

  it("should submit with a comment and show what was sent, and the organization's confirmation page", async () => {
    const owner = client(app.app, app.tenant.apiKey);
    const confirmationPage = `/organizations/${app.tenant.organizationId}/confirmation-page`;
    const message = 'Thank you, Ana! HR will be in touch within two days.';
    expect((await owner.post(`${confirmationPage}/enable`, { message })).statusCode).toBe(200);
    try {
      await page.locator('#comment').fill('Everything is there, thank you.');
      await page.locator('#submit-button').click();
      await page.locator('#sent-title').waitFor();
      await expect(page.locator('.sent').textContent()).resolves.toContain('Everything is there, thank you.');
      await expect(page.locator('.confirmation').textContent()).resolves.toContain(message);
      await screenshot(page, 'walk-06-submitted');
    } finally {
      // The other pages of this run's organization show none.
      expect((await owner.post(`${confirmationPage}/disable`)).statusCode).toBe(200);
    }
  });

  it('should let the recipient redo the item the owner rejects', async () => {
    const passport = itemOf('Passport');
    const rejected = await client(app.app, app.tenant.apiKey).post(`/requests/${created.id}/reject`, {
      message: 'The scan is blurry, please send it again.',
      item_ids: [passport],
    });
    expect(rejected.statusCode).toBe(200);
    await page.reload();
    await expect(page.locator('#rejected-title').textContent()).resolves.toContain('asks you to redo');
    await expect(page.locator('.notice').textContent()).resolves.toContain('The scan is blurry');
    await screenshot(page, 'walk-07-rejected');

    const path = join(files, 'passport-sharp.bin');
    writeFileSync(path, sharp);
    await page.locator(`#file-${passport}`).setInputFiles(path);
    await page.locator(`#item-${passport}[data-status="COMPLETE"]`).waitFor();
    await page.locator('#submit-button').click();
    await page.locator('#sent-title').waitFor();
    await screenshot(page, 'walk-08-resubmitted');
  });

  it('should give the owner, once verified, a zip holding what was sent and the signed PDF, which pdfsig validates', async () => {
    const verified = await client(app.app, app.tenant.apiKey).post(`/requests/${created.id}/verify`);
    expect(verified.statusCode).toBe(200);
    const zip = await client(app.app, app.tenant.apiKey).get(`/requests/${created.id}/download`);
    expect(zip.statusCode).toBe(200);
    const entries = await unzip(zip.rawPayload);
    expect([...entries.values()].map(sha256)).toEqual(expect.arrayContaining([sha256(scan), sha256(sharp)]));
    expect(JSON.parse(entries.get('Your details/Client details.json')!.toString()).answers).toEqual({
      Employer: 'Acme Accounting',
      'Full name': 'Ana Diaz',
      'Tax ID': '123-45-6789',
    });
    expect(entries.get('Your details/Client details.csv')!.toString()).toBe(
      '\uFEFFfield,value\r\nEmployer,Acme Accounting\r\nFull name,Ana Diaz\r\nTax ID,123-45-6789\r\n',
    );
    const pdfs = [...entries].filter(([name]) => name.toLowerCase().endsWith('.pdf'));
    expect(pdfs).toHaveLength(1);
    const path = join(files, 'signed.pdf');
    writeFileSync(path, pdfs[0][1]);
    // The signing module's check: exit 0 only when pdfsig finds the signature and calls it valid.
    const checked = await run('bash', ['scripts/check-pdf-signature.sh', path]);
    expect(checked.stderr).toContain('Signature Validation: Signature is Valid.');
    // Its pages as pictures, to look at with the screenshots (walk-09-signed-pdf-1.png, …).
    await run('pdftoppm', ['-png', '-r', '50', path, join(ARTIFACTS, 'walk-09-signed-pdf')]);
  });
});
