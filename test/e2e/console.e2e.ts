import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { PDFDocument } from 'pdf-lib';
import type { Download, Page } from 'playwright-core';
import { editorLink } from '../../src/modules/contracts/contract.editor-link';
import { client } from '../support/app';
import { createUser } from '../support/fixtures';
import { pngBytes } from '../support/png';
import { startReceiver } from '../support/receiver';
import { signedIn, tokenOf } from '../support/portal';
import { unzip } from '../support/zip';
import { openContext, PHONE, screenshot } from './support/browser';
import { ownerPage, signInByPages, type OwnerPage } from './support/console';
import { useAppAndBrowser } from './support/server';

// The owner's console (/app) in headless Chromium, on Gather's GraphQL API, signed in with the session cookie
// (test/e2e/support/console.ts). Screenshots at 1280 and 360 px land in test/artifacts/console-*.png.

/** Within this time a change made elsewhere shows on the page, without a reload. */
const LIVE_MS = 3000;
const CONTRACT = readFileSync(join(__dirname, '..', '..', 'examples', 'contract.pdf'));

/** Retries a check until it passes or `timeout` ms have gone (a page's value read again). */
async function eventually(check: () => Promise<void>, timeout = LIVE_MS): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The words of a PDF with their boxes, in points from each page's top left corner (poppler's pdftotext -bbox). */
function wordsOf(pdf: Buffer): Array<{ page: number; text: string; x0: number; y0: number; x1: number; y1: number }> {
  const path = join(mkdtempSync(join(tmpdir(), 'gather-e2e-')), 'signed.pdf');
  writeFileSync(path, pdf);
  const html = execFileSync('pdftotext', ['-bbox', path, '-'], { encoding: 'utf8' });
  return html
    .split('<page')
    .slice(1)
    .flatMap((pageHtml, index) =>
      [
        ...pageHtml.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
      ].map((m) => ({
        page: index + 1,
        text: m[5],
        x0: Number(m[1]),
        y0: Number(m[2]),
        x1: Number(m[3]),
        y1: Number(m[4]),
      })),
    );
}

/** No part of the page is wider than the window (a phone scrolls down, never sideways). */
const widthFits = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1');

describe('the owner console', () => {
  const world = useAppAndBrowser();
  let api: ReturnType<typeof client>;

  beforeAll(() => {
    api = client(world.app.app, world.app.tenant.apiKey);
  });

  it('should send a browser without a session to /sign-in, to come back where it was', async () => {
    const { context, outside } = await openContext(world.browser, world.app.origin, {
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const shell = await page.goto(`${world.app.origin}/app/requests?state=VERIFIED`);
    expect(shell!.status()).toBe(200);
    expect(shell!.headers()['content-security-policy']).not.toContain('unsafe-inline');
    await page.waitForURL((url) => url.pathname === '/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/app/requests?state=VERIFIED');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should sign in by the mailed link through the pages, and land on the console', async () => {
    const { context, outside } = await openContext(world.browser, world.app.origin, {
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const email = (await api.graphql('{ viewer { email } }')).data.viewer.email;
    expect(await signInByPages(world.app, page, email, '/app/requests')).toBe(true);
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.locator('#live-status[data-state="up"]').waitFor();
    expect(outside).toEqual([]);
    await context.close();
  });

  /** A download's bytes, as the browser saved them (with the session cookie). */
  const downloaded = async (download: Download): Promise<Buffer> => readFileSync((await download.path())!);

  /** A request made through REST, with its recipients' links usable through the recipient API. */
  async function create(body: Record<string, unknown>) {
    const response = await api.post('/requests', {
      items: [
        { name: 'Passport', type: 'UPLOAD', required: true },
        { name: 'Start date?', type: 'QUESTION', required: true },
      ],
      recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', auth_method: 'NONE' }],
      ...body,
    });
    if (response.statusCode !== 200)
      throw new Error(`POST /requests answered ${response.statusCode}: ${response.body}`);
    return response.json() as {
      id: string;
      items: Array<{ id: string; name: string; type: string }>;
      recipients: Array<{ id: string; request_link: string }>;
    };
  }

  describe('requests', () => {
    let owner: OwnerPage;
    beforeAll(async () => {
      owner = await ownerPage(world.browser, world.app);
    });
    afterAll(async () => {
      await owner?.context.close();
    });

    it('should list requests with counts by state, filter, search and page, live', async () => {
      const { page, errors, outside } = owner;
      const made = [];
      for (let i = 0; i < 22; i++) made.push(await create({ name: `Onboarding ${String(i).padStart(2, '0')}` }));
      const lease = await create({
        name: 'Lease application',
        recipients: [{ first_name: 'Chen', last_name: 'Wei', email: 'chen.wei@example.com', auth_method: 'NONE' }],
      });
      expect((await api.post(`/requests/${made[0].id}/close`)).statusCode).toBe(200);
      const other = (
        await api.graphql(
          `mutation { userCreate(input: {email: "carla@example.com", firstName: "Carla", lastName: "Reyes"}) { user { id } } }`,
        )
      ).data.userCreate.user;

      await page.goto(`${world.app.origin}/app/requests`);
      await page.locator('#live-status[data-state="up"]').waitFor();
      await page.getByRole('heading', { name: '23 requests' }).waitFor();
      await expect(page.locator('#counts .count[data-state="CLOSED"] .count-value').textContent()).resolves.toBe('1');
      await expect(
        page.locator('#counts .count[data-state="INCOMPLETE_AND_LINK_SENT"] .count-value').textContent(),
      ).resolves.toBe('22');
      // Latest activity first, 20 to a page.
      await expect(page.locator('#requests .request').count()).resolves.toBe(20);
      await expect(page.locator('#requests .request').first().getAttribute('data-id')).resolves.toBe(made[0].id);
      await screenshot(page, 'console-01-requests-1280');

      await page.getByRole('button', { name: 'Older' }).click();
      await page.locator('#requests .request').nth(3).waitFor({ state: 'detached' });
      await expect(page.locator('#requests .request').count()).resolves.toBe(3);
      await page.getByRole('button', { name: 'Newer' }).click();
      await page.locator('#requests .request').nth(19).waitFor();

      // A count filters by its state; the state is in the address, so Back undoes it.
      await page.locator('#counts .count[data-state="CLOSED"] button').click();
      await page.getByRole('heading', { name: '1 request' }).waitFor();
      expect(new URL(page.url()).searchParams.get('state')).toBe('CLOSED');
      await page.goBack();
      await page.getByRole('heading', { name: '23 requests' }).waitFor();

      // Search by a recipient's name, then by the request's.
      await page.getByLabel('Name or recipient').fill('chen wei');
      await page.getByRole('heading', { name: '1 request' }).waitFor();
      await expect(page.locator('#requests .request').getAttribute('data-id')).resolves.toBe(lease.id);
      await page.getByLabel('Name or recipient').fill('Onboarding 1');
      await page.getByRole('heading', { name: '10 requests' }).waitFor();
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByRole('heading', { name: '23 requests' }).waitFor();

      // Filter by owner: another user's request is listed only under that user.
      const carlas = await create({ name: 'Carla’s request', owner_id: other.id });
      await page.getByRole('heading', { name: '24 requests' }).waitFor({ timeout: LIVE_MS });
      await page.getByLabel('Owner').selectOption({ label: 'Carla Reyes' });
      await page.getByRole('heading', { name: '1 request' }).waitFor();
      await expect(page.locator('#requests .request').getAttribute('data-id')).resolves.toBe(carlas.id);
      await page.getByLabel('Owner').selectOption({ label: 'Anyone' });

      // Live: a request made elsewhere appears on top, and a recipient's answer moves its progress.
      await page.getByRole('heading', { name: '24 requests' }).waitFor();
      const live = await create({ name: 'Made while watching' });
      await page
        .locator(`#requests .request[data-id="${live.id}"]`)
        .waitFor({ timeout: LIVE_MS })
        .catch(async () => {
          throw new Error(`not shown live; status: ${await page.locator('#live-status').textContent()}`);
        });
      const recipient = await signedIn(world.app.app, tokenOf(live.recipients[0].request_link));
      const question = live.items.find((item) => item.type === 'QUESTION')!;
      expect((await recipient.answer(question.id, 'January 5')).statusCode).toBe(200);
      await page
        .locator(`#requests .request[data-id="${live.id}"] .recipient-progress`, { hasText: '1 of 2 items' })
        .waitFor({ timeout: LIVE_MS });
      await expect(page.locator(`#requests .request[data-id="${live.id}"] .percent`).textContent()).resolves.toBe(
        '50%',
      );

      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-02-requests-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });

    it('should reach a request from the list with the keyboard alone', async () => {
      const { page, errors } = owner;
      await page.goto(`${world.app.origin}/app/requests`);
      await page.locator('#requests .request').first().waitFor();
      const first = await page.locator('#requests .request').first().getAttribute('data-id');
      // Tab until the first request's link has the focus, then follow it with Enter.
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate<string | null>("document.activeElement?.getAttribute('href')");
        if (focused === `/app/requests/${first}`) break;
      }
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === `/app/requests/${first}`);
      // The new page's heading has the focus.
      await page.locator('h1:focus').waitFor();
      expect(errors).toEqual([]);
    });
  });

  describe('a new request', () => {
    let owner: OwnerPage;
    beforeAll(async () => {
      owner = await ownerPage(world.browser, world.app);
    });
    afterAll(async () => {
      await owner?.context.close();
    });

    it('should show what requestCreate refuses at its fields, and move the focus to the list of problems', async () => {
      const { page, errors } = owner;
      await page.goto(`${world.app.origin}/app/requests/new`);
      await page.getByRole('heading', { level: 1, name: 'New request' }).waitFor();
      await page.getByLabel('Request name').fill('Broken');
      await page.getByRole('button', { name: 'Add question' }).click();
      await page.getByLabel('Question', { exact: true }).fill('Why?');
      await page.getByLabel('First name').fill('Ana');
      await page.getByLabel('Due', { exact: true }).fill('2027-01-02T10:00');
      await page.getByLabel(/^Expires/).fill('2027-01-01T10:00');
      await page.getByRole('button', { name: 'Send to the recipients' }).click();
      const summary = page.locator('.error-summary');
      await summary.waitFor();
      await page.locator('.error-summary:focus').waitFor();
      const expiry = page.locator('#field-input-expirationDate');
      await expect(expiry.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.locator('#field-input-expirationDate-error').textContent()).resolves.toBe(
        'Must be later than the due date',
      );
      await expect(page.locator('#field-input-recipients-0-email-error').textContent()).resolves.toContain(
        'needs an email or a phone',
      );
      // A problem in the list leads to its field.
      await summary.getByRole('link', { name: 'Must be later than the due date' }).click();
      await page.locator('#field-input-expirationDate:focus').waitFor();
      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-06-new-request-errors-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      // Nothing was made.
      expect(
        (await api.graphql('{ requests(filter: { search: "Broken" }) { totalCount } }')).data.requests.totalCount,
      ).toBe(0);
      expect(errors).toEqual([]);
    });

    it('should create and send a request with upload, question, e-signature and form items, then follow it live', async () => {
      const { page, errors, outside } = owner;
      const form = await api.graphql(
        `mutation ($input: FormCreateInput!) { formCreate(input: $input) { form { id } userErrors { message } } }`,
        { input: { name: 'Tax details', fields: { 'Full name': {}, 'Tax ID': {} } } },
      );
      expect(form.data.formCreate.userErrors).toEqual([]);
      await page.goto(`${world.app.origin}/app/requests/new`);
      await page.getByRole('heading', { level: 1, name: 'New request' }).waitFor();
      await page.getByLabel('Request name').fill('Onboarding Ana');
      for (const kind of ['upload', 'question', 'e-signature', 'form'])
        await page.getByRole('button', { name: `Add ${kind}` }).click();
      const entry = (n: number) => page.locator('.editor-list').first().locator('.editor-entry').nth(n);
      await entry(0).getByLabel('Name').fill('Proof of address');
      await entry(1).getByLabel('Question').fill('Start date?');
      await entry(1).getByLabel('Required').uncheck();
      await entry(2).getByLabel('Name').fill('Engagement letter');
      // The contract is uploaded here, then chosen.
      await entry(2)
        .getByLabel(/Or upload one/)
        .setInputFiles({
          name: 'Engagement letter.pdf',
          mimeType: 'application/pdf',
          buffer: CONTRACT,
        });
      await eventually(async () =>
        expect(await entry(2).getByLabel('Contract to sign').inputValue()).toMatch(/^[0-9a-f-]{36}$/),
      );
      await entry(3).getByLabel('Name').fill('Your details');
      await entry(3).getByLabel('Form to fill in').selectOption({ label: 'Tax details' });
      // Order: the question goes first.
      await entry(1).getByRole('button', { name: /^Up/ }).click();
      await expect(entry(0).getByLabel('Question').inputValue()).resolves.toBe('Start date?');
      await page.getByLabel('First name').fill('Ana');
      await page.getByLabel('Last name').fill('Diaz');
      await page.getByLabel('Email').fill('ana.diaz@example.com');
      await page.getByLabel('Signs in with').selectOption('NONE');
      await page.getByLabel('Due', { exact: true }).fill('2030-01-02T10:00');
      await page.getByLabel(/^Expires/).fill('2030-03-01T10:00');
      await page.getByLabel('Days between reminders').fill('2');
      await page.getByLabel('Message to the recipients (optional)').fill('Welcome aboard!');
      await screenshot(page, 'console-05-new-request-1280');
      const mails = world.app.smtp.received.length;
      await page.getByRole('button', { name: 'Send to the recipients' }).click();
      await page.waitForURL((url) => /^\/app\/requests\/[\w-]{36}$/.test(url.pathname));
      const id = new URL(page.url()).pathname.split('/').pop()!;
      await page.getByRole('heading', { level: 1, name: 'Onboarding Ana' }).waitFor();
      await page.locator('.badge[data-state="INCOMPLETE_AND_LINK_SENT"]').first().waitFor();

      const made = (
        await api.graphql(
          `query ($id: ID!) { request(id: $id) { dueDate expirationDate reminders personalMessage
            items { kind name required ... on ESignatureItem { contract { name } } ... on UploadItem { form { name } } }
            recipients { email auth requestLink } } }`,
          { id },
        )
      ).data.request;
      expect(made).toMatchObject({
        dueDate: new Date(2030, 0, 2, 10, 0).toISOString(),
        expirationDate: new Date(2030, 2, 1, 10, 0).toISOString(),
        reminders: 2,
        personalMessage: 'Welcome aboard!',
        items: [
          { kind: 'QUESTION', name: 'Start date?', required: false },
          { kind: 'UPLOAD', name: 'Proof of address', required: true, form: null },
          { kind: 'E_SIGNATURE', name: 'Engagement letter', contract: { name: 'Engagement letter.pdf' } },
          { kind: 'UPLOAD', name: 'Your details', form: { name: 'Tax details' } },
        ],
        recipients: [{ email: 'ana.diaz@example.com', auth: 'NONE' }],
      });
      // Sent: the invitation reached the recipient.
      await eventually(
        async () =>
          expect(world.app.smtp.received.slice(mails).some((m) => m.envelopeTo.includes('ana.diaz@example.com'))).toBe(
            true,
          ),
        15_000,
      );
      // The recipient answers in the portal, on a phone: the console shows it without a reload.
      const ana = await signedIn(world.app.app, tokenOf(made.recipients[0].requestLink));
      const question = (await ana.request()).json().items.find((item: { name: string }) => item.name === 'Start date?');
      const recipient = await openContext(world.browser, world.app.origin);
      const portalPage = await recipient.context.newPage();
      await portalPage.goto(made.recipients[0].requestLink.replace(/^https?:\/\/[^/]+/, world.app.origin));
      await portalPage.locator(`#answer-${question.id}`).fill('Monday');
      await portalPage.locator(`#save-${question.id}`).click();
      await portalPage.locator(`#item-${question.id}[data-status="COMPLETE"]`).waitFor();
      await recipient.context.close();
      await page.locator('.answer-text', { hasText: 'Monday' }).waitFor({ timeout: LIVE_MS });
      await page.locator('.recipient-progress', { hasText: '1 of 4 items done' }).waitFor({ timeout: LIVE_MS });
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });

    it('should start from a template, keep it as a draft, then send it', async () => {
      const { page, errors } = owner;
      const template = await api.post('/templates', {
        name: 'Yearly taxes',
        default_title: 'Taxes 2026',
        personal_message: 'Your yearly documents, please.',
        reminders: 4,
        items: [
          { name: 'W-2', type: 'UPLOAD', required: true },
          { name: 'Any dependents?', type: 'QUESTION', required: false },
        ],
      });
      expect(template.statusCode).toBe(200);
      await page.goto(`${world.app.origin}/app/requests/new?template=${template.json().id}`);
      await eventually(async () => expect(await page.getByLabel('Request name').inputValue()).toBe('Taxes 2026'));
      await expect(page.getByLabel('Start from').inputValue()).resolves.toBe(template.json().id);
      await expect(page.locator('.editor-list').first().locator('.editor-entry').count()).resolves.toBe(2);
      await expect(page.getByLabel('Days between reminders').inputValue()).resolves.toBe('4');
      await expect(page.getByLabel('Message to the recipients (optional)').inputValue()).resolves.toBe(
        'Your yearly documents, please.',
      );
      await page.getByLabel('Email').fill('bo@example.com');
      await page.getByRole('button', { name: 'Save as draft' }).click();
      await page.getByRole('heading', { level: 1, name: 'Taxes 2026' }).waitFor();
      await page.locator('.badge[data-state="PRE_LINK_GENERATED"]').first().waitFor();
      await page.locator('.facts', { hasText: 'Yearly taxes' }).waitFor();
      await page.getByRole('button', { name: 'Send now' }).click();
      await page.locator('.badge[data-state="INCOMPLETE_AND_LINK_SENT"]').first().waitFor();
      expect(errors).toEqual([]);
    });
  });

  describe('templates, webhooks, settings and users', () => {
    let owner: OwnerPage;
    beforeAll(async () => {
      owner = await ownerPage(world.browser, world.app);
    });
    afterAll(async () => {
      await owner?.context.close();
    });

    it('should create, edit, use and delete a template', async () => {
      const { page, errors, outside } = owner;
      await page.goto(`${world.app.origin}/app/templates`);
      await page.getByRole('link', { name: 'New template' }).click();
      await page.getByRole('heading', { level: 1, name: 'New template' }).waitFor();
      await page.getByRole('button', { name: 'Create template' }).click();
      // The name is required: said at its field.
      await page.locator('#field-input-name-error').waitFor();
      await page.getByLabel('Template name').fill('Onboarding kit');
      await page.getByLabel('Title of its requests (optional)').fill('Welcome to Acme');
      await page.getByLabel('Days between reminders').fill('6');
      await page.getByRole('button', { name: 'Add upload' }).click();
      await page.getByRole('button', { name: 'Add question' }).click();
      const entry = (n: number) => page.locator('.editor-list .editor-entry').nth(n);
      await entry(0).getByLabel('Name').fill('Passport');
      await entry(1).getByLabel('Question').fill('Shirt size?');
      await page.getByRole('button', { name: 'Create template' }).click();
      await page.waitForURL((url) => /^\/app\/templates\/[\w-]{36}$/.test(url.pathname));
      const id = new URL(page.url()).pathname.split('/').pop()!;
      await page.getByRole('heading', { level: 1, name: 'Onboarding kit' }).waitFor();
      await page.getByLabel('Template name').fill('Onboarding kit 2026');
      await entry(1).getByLabel('Required').uncheck();
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.locator('.notice', { hasText: 'Saved' }).waitFor();
      const saved = (
        await api.graphql(
          `query ($id: ID!) { template(id: $id) { name defaultTitle reminders items { kind name required } } }`,
          {
            id,
          },
        )
      ).data.template;
      expect(saved).toEqual({
        name: 'Onboarding kit 2026',
        defaultTitle: 'Welcome to Acme',
        reminders: 6,
        items: [
          { kind: 'UPLOAD', name: 'Passport', required: true },
          { kind: 'QUESTION', name: 'Shirt size?', required: false },
        ],
      });
      await page.getByRole('link', { name: 'Templates' }).first().click();
      const row = page.locator(`tr[data-template="${id}"]`);
      await row.waitFor();
      await screenshot(page, 'console-07-templates-1280');
      await row.getByRole('link', { name: /^Use/ }).click();
      await eventually(async () => expect(await page.getByLabel('Request name').inputValue()).toBe('Welcome to Acme'));
      await page.goBack();
      await row.waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: /^Delete/ }).click();
      await row.waitFor({ state: 'detached' });
      expect((await api.graphql(`query ($id: ID!) { template(id: $id) { id } }`, { id })).data.template).toBeNull();
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });

    it('should send a template to many from a CSV: every bad line said at once, then the requests made live', async () => {
      const { page, errors, outside } = owner;
      const template = await api.post('/templates', {
        name: 'Tax season 2026',
        items: [{ name: 'W-2', type: 'UPLOAD', required: true }],
      });
      expect(template.statusCode).toBe(200);
      const { id } = template.json();
      await page.goto(`${world.app.origin}/app/templates`);
      await page
        .locator(`tr[data-template="${id}"]`)
        .getByRole('link', { name: /^Send to many/ })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Send “Tax season 2026” to many' }).waitFor();
      const csv = page.getByLabel('Recipients, one per line');
      await csv.fill(
        'first_name,last_name,email,language\nAna,Diaz,ana@example.com,es\nBo,Li,bo at example.com,zh\nCy,Roy,,fr\n',
      );
      await page.getByRole('button', { name: 'Send' }).click();
      // Lines 3 and 4 of the file, both at once; nothing is made.
      const summary = page.locator('.error-summary');
      await summary.waitFor();
      await expect(summary.locator('li').allTextContents()).resolves.toEqual([
        expect.stringMatching(/^Line 3: /),
        expect.stringMatching(/^Line 4: /),
      ]);
      await screenshot(page, 'console-18-bulk-send-problems-1280');
      expect((await api.get('/bulk-sends')).json()).toEqual([]);
      await csv.fill(
        'first_name,last_name,email,language\nAna,Diaz,ana@example.com,es\nBo,Li,bo@example.com,zh\nCy,Roy,cy@example.com,fr\n',
      );
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForURL((url) => /^\/app\/bulk-sends\/[\w-]{36}$/.test(url.pathname));
      // The job makes the three requests; the page follows them on its subscriptions, without a reload.
      await page.locator('#live-status[data-state="up"]').waitFor();
      await page.locator('[data-bulk-status="COMPLETED"]').waitFor({ timeout: 15_000 });
      await expect(page.locator('[data-bulk-status]').textContent()).resolves.toContain('3 of 3 requests made');
      const bar = page.getByRole('progressbar', { name: 'Requests made' });
      await expect(bar.getAttribute('aria-valuenow')).resolves.toBe('100');
      await page.setViewportSize({ width: 360, height: 740 });
      expect(await widthFits(page)).toBe(true);
      // The fill grows to its width over 0.3 s: the picture is of the full bar.
      await page.waitForFunction(
        (track) =>
          track!.firstElementChild!.getBoundingClientRect().width >= track!.getBoundingClientRect().width - 0.5,
        await bar.elementHandle(),
      );
      await screenshot(page, 'console-19-bulk-send-done-360');
      await page.setViewportSize({ width: 1280, height: 800 });
      const send = (await api.get('/bulk-sends')).json()[0];
      expect(send).toMatchObject({ template_id: id, status: 'COMPLETED', total: 3, created: 3, failed: 0 });
      await page.goto(`${world.app.origin}/app/bulk-sends`);
      await page.getByRole('heading', { level: 1, name: 'Bulk sends' }).waitFor();
      await expect(page.locator('tbody tr').first().textContent()).resolves.toContain('Done: 3 of 3');
      // The page's own 422, as the browser logs it; nothing else.
      expect(errors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
      ]);
      expect(outside).toEqual([]);
    });

    it('should create a webhook, show its secret once, and replay a failed delivery', async () => {
      const { page, errors } = owner;
      const receiver = await startReceiver();
      try {
        receiver.setResponder(() => ({ status: 500 }));
        await page.goto(`${world.app.origin}/app/webhooks`);
        await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
        await page.getByLabel('Endpoint URL').fill(receiver.url);
        // No topic: refused, said at the topics.
        await page.getByLabel('request.completed').uncheck();
        await page.getByRole('button', { name: 'Create webhook' }).click();
        await page.locator('#field-input-topics').waitFor();
        await page.getByLabel('request.created', { exact: true }).check();
        await page.getByRole('button', { name: 'Create webhook' }).click();
        const secret = (await page.locator('#webhook-secret').textContent())!.trim();
        expect(secret).toMatch(/^whsec_/);
        await screenshot(page, 'console-08-webhook-secret-1280');
        const link = page.getByRole('link', { name: receiver.url });
        await link.waitFor();

        // A request made now is delivered, refused by the endpoint, and listed with its attempt.
        await create({ name: 'Hooked request' });
        await eventually(async () => expect(receiver.incoming()).toBeGreaterThanOrEqual(1), 15_000);
        await link.click();
        await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
        // The secret is not shown again.
        await expect(page.locator('#webhook-secret').count()).resolves.toBe(0);
        const delivery = page.locator('.deliveries .item-card').first();
        await eventually(async () => {
          await page.reload();
          await delivery.waitFor();
          expect(await delivery.textContent()).toContain('last answer 500');
        }, 15_000);
        await delivery.getByRole('button', { name: 'Attempts' }).click();
        await delivery.locator('td', { hasText: '500' }).first().waitFor();

        receiver.setResponder(() => ({ status: 200 }));
        await delivery.getByRole('button', { name: 'Send again' }).click();
        await page.locator('.notice', { hasText: 'Sent again' }).waitFor();
        await receiver.waitFor(1);
        // Signed with the secret the console showed.
        expect(receiver.verify(receiver.received[0], secret)).toMatchObject({ data: { name: 'Hooked request' } });
        await eventually(async () => {
          await page.reload();
          await page.locator('.deliveries .item-card[data-status="SUCCEEDED"]').first().waitFor({ timeout: 1000 });
        }, 15_000);
        await page.setViewportSize(PHONE);
        expect(await widthFits(page)).toBe(true);
        await screenshot(page, 'console-09-webhook-360');
        await page.setViewportSize({ width: 1280, height: 900 });

        await page.getByRole('button', { name: 'Disable' }).click();
        await page.locator('.notice', { hasText: 'Disabled' }).waitFor();
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL((url) => url.pathname === '/app/webhooks');
        expect(errors).toEqual([]);
      } finally {
        await receiver.close();
      }
    });

    it('should change the defaults, the branding with its logo, and the confirmation page', async () => {
      const { page, errors } = owner;
      await page.goto(`${world.app.origin}/app/settings`);
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await page.getByLabel('Days between reminders').fill('5');
      await page.getByRole('button', { name: 'Save defaults' }).click();
      await page.locator('.notice', { hasText: 'Defaults saved' }).waitFor();
      await page.getByLabel('Button colour', { exact: true }).fill('blue');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.locator('#field-input-primaryColor-error').waitFor();
      await page.getByLabel('Button colour', { exact: true }).fill('#aa3300');
      await page.getByLabel('Sender name of mails').fill('Acme Onboarding');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.locator('.notice', { hasText: 'Branding saved' }).waitFor();
      await page.getByLabel(/Upload a logo/).setInputFiles({
        name: 'logo.png',
        mimeType: 'image/png',
        buffer: pngBytes(64, 32, [170, 51, 0]),
      });
      const logo = page.locator('img.logo');
      await logo.waitFor();
      await eventually(async () => expect(await logo.evaluate((img: any) => img.naturalWidth)).toBe(64));
      await page.getByLabel('Message to recipients who submitted').fill('Thank you! We will be in touch.');
      await page.getByRole('button', { name: 'Show this message' }).click();
      await page.locator('.notice', { hasText: 'Confirmation page saved' }).waitFor();
      const organization = (
        await api.graphql(
          '{ organization { settings { defaultReminders } branding { primaryColor senderName logoUrl } confirmationPage { enabled message } } }',
        )
      ).data.organization;
      expect(organization).toMatchObject({
        settings: { defaultReminders: 5 },
        branding: { primaryColor: '#aa3300', senderName: 'Acme Onboarding' },
        confirmationPage: { enabled: true, message: 'Thank you! We will be in touch.' },
      });
      expect(organization.branding.logoUrl).toBeTruthy();
      await screenshot(page, 'console-10-settings-1280');
      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-11-settings-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(errors).toEqual([]);
    });

    it('should add a user, make a team, and make and revoke an API key whose secret is shown once', async () => {
      const { page, errors } = owner;
      await page.goto(`${world.app.origin}/app/users`);
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      const newUser = page.getByRole('form', { name: 'New user' });
      await newUser.getByLabel('Email').fill('not-an-address');
      await newUser.getByRole('button', { name: 'Add user' }).click();
      await page.locator('#field-user-input-email-error').waitFor();
      await newUser.getByLabel('Email').fill('dana@example.com');
      await newUser.getByLabel('First name').fill('Dana');
      await newUser.getByLabel('Last name').fill('Lee');
      await newUser.getByRole('button', { name: 'Add user' }).click();
      await page.locator('.notice', { hasText: 'dana@example.com added' }).waitFor();
      const dana = page.locator('tr', { hasText: 'dana@example.com' });
      await dana.waitFor();

      await page.getByLabel("New team's name").fill('Tax team');
      await page.getByRole('button', { name: 'Make team' }).click();
      await page.locator('.notice', { hasText: 'Team Tax team made' }).waitFor();
      await dana.getByLabel('Team of dana@example.com').selectOption({ label: 'Tax team' });
      await page.locator('.notice', { hasText: "dana@example.com's team changed" }).waitFor();
      await page.locator('.plain-list li', { hasText: /^Tax team · 1 member\s*$/ }).waitFor();
      await dana.getByLabel('Role of dana@example.com').selectOption('ADMIN');
      await page.locator('.notice', { hasText: 'dana@example.com is now ADMIN' }).waitFor();

      await page.getByLabel('For', { exact: true }).selectOption({ label: 'Dana Lee' });
      await page.getByLabel('Name (what it is for)').fill('CRM sync');
      await page.getByRole('button', { name: 'Make key' }).click();
      const secret = (await page.locator('.made-keys .secret').textContent())!.trim();
      const asDana = await client(world.app.app, secret).graphql('{ viewer { email role team { name } } }');
      expect(asDana.data.viewer).toEqual({ email: 'dana@example.com', role: 'ADMIN', team: { name: 'Tax team' } });
      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-12-users-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: /^Revoke/ }).click();
      await page.locator('.made-keys .field-error', { hasText: 'revoked' }).waitFor();
      expect((await client(world.app.app, secret).post('/graphql', { query: '{ viewer { id } }' })).statusCode).toBe(
        401,
      );
      expect(errors).toEqual([]);
    });

    it('should keep a USER to its own screens', async () => {
      const carl = await createUser(world.app.app, world.app.tenant.apiKey, {
        email: 'carl@example.com',
        role: 'USER',
      });
      const user = await ownerPage(world.browser, world.app, { width: 1280, height: 900 }, carl.apiKey);
      try {
        await user.page.goto(`${world.app.origin}/app/requests`);
        await user.page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
        const nav = user.page.getByRole('navigation', { name: 'Console' });
        await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
          'Requests',
          'New request',
          'Templates',
          'Contracts',
          'Live dashboard',
        ]);
        await user.page.goto(`${world.app.origin}/app/settings`);
        await user.page.getByRole('heading', { level: 1, name: 'For administrators' }).waitFor();
        expect(user.errors).toEqual([]);
      } finally {
        await user.context.close();
      }
    });
  });

  describe('a request', () => {
    let owner: OwnerPage;
    beforeAll(async () => {
      owner = await ownerPage(world.browser, world.app);
    });
    afterAll(async () => {
      await owner?.context.close();
    });

    it('should follow each recipient live, preview documents, review items and act on the request', async () => {
      const { page, errors, outside } = owner;
      const contract = (
        await api.post('/contracts?name=Engagement%20letter.pdf', CONTRACT, {
          'content-type': 'application/octet-stream',
        })
      ).json();
      const request = await create({
        name: 'Welcome pack',
        items: [
          { name: 'Proof of address', type: 'UPLOAD', required: true },
          { name: 'Start date?', type: 'QUESTION', required: true },
          { name: 'Engagement letter', type: 'E_SIGNATURE', contractId: contract.id, required: true },
          { name: 'Photo', type: 'UPLOAD', required: false },
        ],
        recipients: [
          { first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', auth_method: 'NONE' },
          { first_name: 'Bo', email: 'bo@example.com', auth_method: 'NONE' },
        ],
      });
      const item = (name: string) => request.items.find((i) => i.name === name)!;
      const card = (name: string) => page.locator(`.item-card[data-item="${item(name).id}"]`);

      await page.goto(`${world.app.origin}/app/requests/${request.id}`);
      await page.getByRole('heading', { level: 1, name: 'Welcome pack' }).waitFor();
      await page.locator('#live-status[data-state="up"]').waitFor();
      await expect(page.locator('.recipient-card .recipient-progress').allTextContents()).resolves.toEqual([
        '0 of 4 items done',
        '0 of 4 items done',
      ]);

      // The recipient works through the link: each step shows without a reload.
      const ana = await signedIn(world.app.app, tokenOf(request.recipients[0].request_link));
      expect((await ana.upload(item('Proof of address').id, CONTRACT, 'address.pdf')).statusCode).toBe(200);
      await card('Proof of address').locator('[data-status="COMPLETE"]').first().waitFor({ timeout: LIVE_MS });
      expect((await ana.answer(item('Start date?').id, 'January 5')).statusCode).toBe(200);
      await card('Start date?').locator('.answer-text', { hasText: 'January 5' }).waitFor({ timeout: LIVE_MS });
      expect((await ana.upload(item('Photo').id, pngBytes(120, 80), 'photo.png')).statusCode).toBe(200);
      const sign = await world.app.app.inject({
        method: 'POST',
        url: `${ana.base}/items/${item('Engagement letter').id}/sign`,
        headers: { authorization: `Bearer ${ana.session}` },
        payload: { signature: { type: 'TYPED', text: 'Ana Diaz' } },
      });
      expect(sign.statusCode).toBe(200);
      await page
        .locator('.recipient-card .recipient-progress', { hasText: '4 of 4 items done' })
        .first()
        .waitFor({ timeout: LIVE_MS });
      expect((await ana.submit('All there.')).statusCode).toBe(200);
      await page
        .locator(
          'h1 + .actions .badge[data-state="COMPLETE_AND_SUBMITTED"], .badge[data-state="COMPLETE_AND_SUBMITTED"]',
        )
        .first()
        .waitFor({ timeout: LIVE_MS });

      // Previews: the image at once from a blob: copy, the PDF when asked, its pages drawn by pdf.js (a script
      // loaded then) on canvases at the preview's width, on a phone too; downloads keep the name.
      const photo = card('Photo').locator('img.preview-image');
      await photo.waitFor();
      expect(await photo.getAttribute('src')).toMatch(/^blob:/);
      expect(await photo.evaluate((img: any) => img.naturalWidth)).toBe(120);
      expect(await page.locator('script[src*="/app/pdf-preview/assets/"]').count()).toBe(0);
      await card('Proof of address').getByRole('button', { name: 'Preview' }).click();
      const firstPage = card('Proof of address').getByRole('img', { name: /^Preview of address\.pdf, page 1 of \d+$/ });
      await firstPage.waitFor();
      expect(await firstPage.evaluate((canvas: any) => canvas.tagName)).toBe('CANVAS');
      // Something is drawn: not every pixel is blank.
      const inked = () =>
        firstPage.evaluate((canvas: any) => {
          const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
          return data.some((value: number, index: number) => index % 4 === 3 && value > 0 && data[index - 1] < 128);
        });
      await eventually(async () => expect(await inked()).toBe(true));
      await page.setViewportSize(PHONE);
      await eventually(async () => {
        const box = (await firstPage.boundingBox())!;
        expect(box.width).toBeGreaterThan(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      });
      await eventually(async () => expect(await inked()).toBe(true));
      expect(await widthFits(page)).toBe(true);
      await firstPage.scrollIntoViewIfNeeded();
      await screenshot(page, 'console-03-pdf-preview-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        card('Proof of address')
          .getByRole('link', { name: /Download/ })
          .click(),
      ]);
      expect(download.suggestedFilename()).toBe('address.pdf');
      expect(await downloaded(download)).toEqual(CONTRACT);
      // The signed contract is the e-signature item's document.
      await card('Engagement letter').locator('.document-name', { hasText: '.signed.pdf' }).waitFor();
      // The PDF preview at 1280 px is as wide as a page is read, not the whole column.
      const wide = (await firstPage.boundingBox())!;
      expect(wide.width).toBeLessThanOrEqual(800);
      expect(wide.width).toBeGreaterThan(600);
      await eventually(async () => expect(await inked()).toBe(true));
      // From the top: the sticky bar stays at the top of a full-page picture.
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, 'console-03-request-1280');

      // Send one item back with a message; the recipient redoes it; then verify everything.
      await card('Start date?')
        .getByRole('button', { name: /Send back/ })
        .click();
      await card('Start date?')
        .getByLabel(/What should the recipients change/)
        .fill('Please give the exact day.');
      await card('Start date?').getByRole('button', { name: 'Send back', exact: true }).click();
      await page.locator('.notice', { hasText: 'sent back' }).waitFor();
      await card('Start date?').locator('.rejection', { hasText: 'Please give the exact day.' }).waitFor();
      await page.locator('.badge[data-state="REJECTED"]').first().waitFor();
      expect((await ana.answer(item('Start date?').id, 'Monday January 5')).statusCode).toBe(200);
      expect((await ana.submit()).statusCode).toBe(200);
      await card('Start date?').locator('.answer-text', { hasText: 'Monday January 5' }).waitFor({ timeout: LIVE_MS });
      await card('Photo')
        .getByRole('button', { name: /^Verify/ })
        .click();
      await card('Photo').locator('[data-status="VERIFIED"]').first().waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Verify all' }).click();
      await page.locator('.badge[data-state="VERIFIED"]').first().waitFor();
      await expect(page.locator('.item-card[data-status="VERIFIED"]').count()).resolves.toBe(4);

      // The zip: answers and a folder per item.
      const [zip] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download all (zip)' }).click(),
      ]);
      const entries = Object.keys(await unzip(await downloaded(zip))).sort();
      expect(entries).toEqual(
        expect.arrayContaining([
          'answers.csv',
          'answers.json',
          'Proof of address/address.pdf',
          'Photo/photo.png',
          'Engagement letter/Engagement letter.signed.pdf',
        ]),
      );

      // The activity log names who did what.
      await page
        .locator('.activity .event[data-action="request.rejected"]', { hasText: 'Please give the exact day.' })
        .waitFor();
      await page.locator('.activity .event[data-action="document.uploaded"]').first().waitFor();
      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-04-request-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    });

    it('should remind, copy and regenerate a link, duplicate, close and delete', async () => {
      const { page, context, errors } = owner;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.app.origin });
      const request = await create({ name: 'Bank statements' });
      await page.goto(`${world.app.origin}/app/requests/${request.id}`);
      await page.getByRole('heading', { level: 1, name: 'Bank statements' }).waitFor();

      await page.getByRole('button', { name: 'Send a reminder…' }).click();
      await page.getByLabel('Message (optional)').fill('A gentle nudge');
      await page.getByRole('button', { name: 'Send reminder' }).click();
      await page.locator('.notice', { hasText: 'Reminder sent to 1 recipient' }).waitFor();

      const link = page.locator('.recipient-card input[readonly]');
      const before = await link.inputValue();
      expect(before).toBe(request.recipients[0].request_link);
      await page.getByRole('button', { name: 'Copy link' }).click();
      await page.locator('.copied', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(before);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: /New link/ }).click();
      await page.locator('.notice', { hasText: 'has a new link' }).waitFor();
      await eventually(async () => expect(await link.inputValue()).not.toBe(before));
      // The old link no longer opens.
      const old = await world.app.app.inject({ method: 'POST', url: `/r/${tokenOf(before)}/api/session` });
      expect(old.statusCode).toBeGreaterThanOrEqual(400);

      await page.getByRole('button', { name: 'Duplicate' }).click();
      await page.waitForURL(
        (url) => /^\/app\/requests\/[\w-]+$/.test(url.pathname) && !url.pathname.endsWith(request.id),
      );
      await page.getByRole('heading', { level: 1, name: 'Bank statements' }).waitFor();
      const copyId = new URL(page.url()).pathname.split('/').pop()!;
      expect(copyId).not.toBe(request.id);

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Close', exact: true }).click();
      await page.locator('.badge[data-state="CLOSED"]').first().waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL((url) => url.pathname === '/app/requests');
      expect((await api.get(`/requests/${copyId}`)).statusCode).toBe(404);
      expect(errors).toEqual([]);
    });
  });
  describe('contracts and the contract editor', () => {
    let owner: OwnerPage;
    beforeAll(async () => {
      owner = await ownerPage(world.browser, world.app);
    });
    afterAll(async () => {
      await owner?.context.close();
    });

    /** A two-page PDF (A4 and Letter), each page saying which it is. */
    async function twoPages(): Promise<Buffer> {
      const pdf = await PDFDocument.create();
      pdf.addPage([595, 842]).drawText('Lease agreement, page one', { x: 60, y: 780 });
      pdf.addPage([612, 792]).drawText('Lease agreement, page two', { x: 60, y: 730 });
      return Buffer.from(await pdf.save());
    }
    const PAGE_WIDTHS = [595, 612];

    /** Where a box lies on its page, in points from the top left corner, read from the screen. */
    async function placed(page: Page, key: string) {
      const box = page.locator(`.box[data-part="${key}"]`);
      const pageNumber = Number(await box.evaluate((el) => el.closest('.pdf-page')!.getAttribute('data-page')));
      const sheet = (await page.locator(`.pdf-page[data-page="${pageNumber}"] .sheet`).boundingBox())!;
      const at = (await box.boundingBox())!;
      const scale = sheet.width / PAGE_WIDTHS[pageNumber - 1];
      return {
        page: pageNumber,
        x: (at.x - sheet.x) / scale,
        y: (at.y - sheet.y) / scale,
        width: at.width / scale,
        height: at.height / scale,
      };
    }

    it('should upload a contract, place three fields on two pages, keep them where they were put, and stamp each signed value inside its box', async () => {
      const { page, errors, outside } = owner;
      await page.goto(`${world.app.origin}/app/contracts`);
      await page.getByRole('heading', { level: 1, name: 'Contracts' }).waitFor();
      await page.getByLabel(/Upload a contract/).setInputFiles({
        name: 'Lease.pdf',
        mimeType: 'application/pdf',
        buffer: await twoPages(),
      });
      const row = page.locator('tr', { hasText: 'Lease.pdf' });
      await row.waitFor();
      await screenshot(page, 'console-13-contracts-1280');
      await page.setViewportSize(PHONE);
      expect(await widthFits(page)).toBe(true);
      await screenshot(page, 'console-13-contracts-360');
      await page.setViewportSize({ width: 1280, height: 900 });
      await row.getByRole('link', { name: /Edit fields/ }).click();
      await page.waitForURL((url) => /^\/contracts\/[\w-]+\/edit$/.test(url.pathname) && url.searchParams.has('token'));
      const id = new URL(page.url()).pathname.split('/')[2];
      await page.locator('.pdf-page[data-page="2"] canvas').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Lease.pdf' }).waitFor();

      // Three fields on two pages: each added, dragged to its place, sized, given its signer.
      const targets = [
        { type: 'text', page: 1, x: 100, y: 150, width: 200, height: 30 },
        { type: 'signature', page: 1, x: 320, y: 600, width: 180, height: 40 },
        { type: 'date', page: 2, x: 60, y: 400, width: 120, height: 24 },
      ];
      const keys: string[] = [];
      for (const target of targets) {
        await page.getByLabel('On page').selectOption(String(target.page));
        await page.getByLabel('Field type').selectOption(target.type);
        await page.getByRole('button', { name: 'Add field' }).click();
        const box = page.locator('.box.selected');
        const key = (await box.getAttribute('data-part'))!;
        keys.push(key);
        const sheet = (await page.locator(`.pdf-page[data-page="${target.page}"] .sheet`).boundingBox())!;
        const scale = sheet.width / PAGE_WIDTHS[target.page - 1];
        // Resized by its corner, then moved by dragging it.
        const start = (await box.boundingBox())!;
        await page.mouse.move(start.x + start.width - 3, start.y + start.height - 3);
        await page.mouse.down();
        await page.mouse.move(start.x + target.width * scale - 3, start.y + target.height * scale - 3, { steps: 4 });
        await page.mouse.up();
        const sized = (await box.boundingBox())!;
        await page.mouse.move(sized.x + 6, sized.y + 6);
        await page.mouse.down();
        // The last one lands two points short and is moved the rest of the way with the keyboard.
        const short = target.type === 'date' ? 2 : 0;
        await page.mouse.move(sheet.x + (target.x - short) * scale + 6, sheet.y + target.y * scale + 6, {
          steps: 6,
        });
        await page.mouse.up();
        if (short) {
          await box.focus();
          await page.keyboard.press('ArrowRight');
          await page.keyboard.press('ArrowRight');
        }
        await page.getByLabel("Signer's e-mail").fill('ana@example.com');
        const at = await placed(page, key);
        for (const side of ['x', 'y', 'width', 'height'] as const)
          expect([target.type, side, Math.abs(at[side] - target[side]) <= 1]).toEqual([target.type, side, true]);
      }
      // An annotation, added then deleted with the keyboard.
      await page.getByLabel('On page').selectOption('1');
      await page.getByRole('button', { name: 'Add annotation' }).click();
      await page.locator('.box.annotation').waitFor();
      await page.locator('.box.annotation').focus();
      await page.keyboard.press('Delete');
      await expect(page.locator('.box.annotation').count()).resolves.toBe(0);

      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#save-status', { hasText: 'Saved: 3 field(s), 0 annotation(s)' }).waitFor();
      await screenshot(page, 'console-14-editor-1280');

      // What was saved is what GET /contracts/{id} answers, each box within a point of where it was put.
      const saved = (await api.get(`/contracts/${id}`)).json();
      expect(saved.fields.map((f: { type: string }) => f.type)).toEqual(['text', 'signature', 'date']);
      saved.fields.forEach((field: any, n: number) => {
        const target = targets[n];
        expect(field.assigned_to).toEqual({ email: 'ana@example.com' });
        expect(field.layout.page).toBe(target.page);
        expect(field.layout.position.anchor_point).toBe('TOP_LEFT');
        expect(Math.abs(field.layout.position.offset_x - target.x)).toBeLessThanOrEqual(1);
        expect(Math.abs(field.layout.position.offset_y - target.y)).toBeLessThanOrEqual(1);
        expect(Math.abs(field.layout.style.width - target.width)).toBeLessThanOrEqual(1);
        expect(Math.abs(field.layout.style.height - target.height)).toBeLessThanOrEqual(1);
      });

      // Reopened, every box is where it was left.
      await page.reload();
      await page.locator('.pdf-page[data-page="2"] canvas').waitFor();
      await eventually(async () => expect(await page.locator('.box.field').count()).toBe(3));
      const reopened = await page
        .locator('.box.field')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-part')!));
      for (const [n, key] of reopened.entries()) {
        const at = await placed(page, key);
        const target = targets[n];
        expect(at.page).toBe(target.page);
        for (const side of ['x', 'y', 'width', 'height'] as const)
          expect([n, side, Math.abs(at[side] - target[side]) <= 1]).toEqual([n, side, true]);
      }
      await page.setViewportSize(PHONE);
      await page.locator('.pdf-page[data-page="1"] canvas').waitFor();
      // The editor draws its pages again at the new width on the next frame.
      await eventually(async () => expect(await widthFits(page)).toBe(true));
      await screenshot(page, 'console-15-editor-360');
      await page.setViewportSize({ width: 1280, height: 900 });

      // The recipient signs: each stamped value lies inside its box (pdftotext -bbox, points from the top left).
      const request = await create({
        name: 'Lease',
        items: [{ name: 'Sign the lease', type: 'E_SIGNATURE', contractId: id, required: true }],
      });
      // In the portal, on a phone: the TEXT and DATE fields by their places' order, the typed signature.
      const item = request.items[0].id;
      const recipient = await openContext(world.browser, world.app.origin);
      const portalPage = await recipient.context.newPage();
      await portalPage.goto(request.recipients[0].request_link.replace(/^https?:\/\/[^/]+/, world.app.origin));
      await portalPage.locator('#checklist-title').waitFor();
      await portalPage.locator(`#field-${item}-field-1`).fill('Ana Diaz, tenant');
      await portalPage.locator(`#field-${item}-field-3`).fill('2026-12-01');
      await portalPage.locator(`#sig-${item}-text`).fill('Ana Diaz');
      await portalPage.locator(`#sign-${item}`).click();
      await portalPage.locator(`#item-${item}[data-status="COMPLETE"]`).waitFor();
      await recipient.context.close();
      const documents = (await api.get(`/requests/${request.id}/items/${request.items[0].id}/documents`)).json();
      const signed = await api.get(new URL(documents[0].download_url).pathname);
      expect(signed.statusCode).toBe(200);
      const words = wordsOf(signed.rawPayload);
      const stamped = [
        { text: 'Ana Diaz, tenant', target: targets[0] },
        { text: 'Ana Diaz', target: targets[1] },
        { text: '2026-12-01', target: targets[2] },
      ];
      for (const { text, target } of stamped) {
        const field = saved.fields[targets.indexOf(target)].layout;
        const box = {
          x0: field.position.offset_x,
          y0: field.position.offset_y,
          x1: field.position.offset_x + field.style.width,
          y1: field.position.offset_y + field.style.height,
        };
        const inBox = words.filter(
          (w) =>
            w.page === target.page &&
            w.x0 >= box.x0 - 0.5 &&
            w.x1 <= box.x1 + 0.5 &&
            w.y0 >= box.y0 - 0.5 &&
            w.y1 <= box.y1 + 0.5,
        );
        expect([text, inBox.map((w) => w.text).join(' ')]).toEqual([text, text]);
      }
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    }, 90_000);

    it('should say a link is not valid or has expired, and open the editor with a new one', async () => {
      const { page, errors } = owner;
      const { id } = (
        await api.post('/contracts?name=NDA.pdf', CONTRACT, { 'content-type': 'application/octet-stream' })
      ).json();
      const answer = await page.goto(
        `${world.app.origin}/contracts/${id}/edit?token=1.${world.app.tenant.userId}.${'A'.repeat(43)}`,
      );
      expect(answer!.status()).toBe(404);
      await page.getByRole('heading', { level: 1, name: 'This editor link is not valid' }).waitFor();
      await screenshot(page, 'console-16-editor-link-1280');
      // The page's own 404, as the browser logs it; nothing else.
      expect(errors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 404 (Not Found)',
      ]);
      await page.getByRole('link', { name: 'Open the editor with a new link' }).click();
      await page.waitForURL((url) => url.pathname === `/contracts/${id}/edit` && url.searchParams.has('token'));
      await page.getByRole('heading', { level: 1, name: 'NDA.pdf' }).waitFor();
      await page.locator('.pdf-page[data-page="1"] canvas').waitFor();
      expect(errors).toEqual([]);
    });

    it("should say so when a real link has expired, or was changed or put on another contract's address", async () => {
      const { page, errors } = owner;
      const upload = () =>
        api.post('/contracts?name=NDA.pdf', CONTRACT, { 'content-type': 'application/octet-stream' });
      const { id } = (await upload()).json();
      const other = (await upload()).json().id;
      const { settings } = world.app.app.contexts;
      // A link read two days ago has ended (links last CONTRACT_EDITOR_LINK_HOURS).
      const old = editorLink(
        { ...settings, clock: { now: () => new Date(Date.now() - 48 * 3_600_000) } },
        id,
        world.app.tenant.userId,
      );
      const expired = await page.goto(old);
      expect(expired!.status()).toBe(410);
      await page.getByRole('heading', { level: 1, name: 'This editor link has expired' }).waitFor();
      await page.setViewportSize({ width: 360, height: 740 });
      await screenshot(page, 'console-17-editor-link-expired-360');
      await page.setViewportSize({ width: 1280, height: 800 });
      await expect(
        page.getByRole('link', { name: 'Open the editor with a new link' }).getAttribute('href'),
      ).resolves.toBe(`/app/contracts/${id}/edit`);

      const live = editorLink(settings, id, world.app.tenant.userId);
      const changed = [
        // One character of its signature changed.
        live.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')),
        // Its end moved later.
        live.replace(/token=(\d+)/, (_, ends: string) => `token=${Number(ends) + 3600}`),
        // Another contract's address.
        live.replace(`/contracts/${id}/`, `/contracts/${other}/`),
      ];
      for (const link of changed) {
        const answer = await page.goto(link);
        expect(answer!.status()).toBe(404);
        await page.getByRole('heading', { level: 1, name: 'This editor link is not valid' }).waitFor();
      }
      // The pages' own 410 and 404s, as the browser logs them; nothing else.
      expect(errors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 410 (Gone)',
        ...changed.map(() => 'Failed to load resource: the server responded with a status of 404 (Not Found)'),
      ]);
      // The unchanged link opens the editor.
      await page.goto(live);
      await page.locator('.pdf-page[data-page="1"] canvas').waitFor();
      expect(errors).toEqual([]);
    });
  });
});
