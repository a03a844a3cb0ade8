import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { Page } from 'playwright-core';
import { client } from '../support/app';
import { eventually } from '../support/fixtures';
import { upload } from '../support/files';
import { ARTIFACTS, openContext, screenshot } from './support/browser';
import { createPortalRequest } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// Issue 28: the recipient's signing page shows the contract's pages with each field at the place the owner gave
// it. At a phone's width and a desktop's, each field's input lies in its box as scaled to the drawn page; the
// recipient fills them in, answers another item (which redraws the page), signs from the signature field's
// button, and the signed PDF holds the values.

/** US Letter, in points. */
const PAGE = { width: 612, height: 792 };
type Layout = {
  page: number;
  position: { offset_x: number; offset_y: number; anchor_point: string };
  style: { width: number; height: number };
};
const at = (page: number, anchor: string, x: number, y: number, width: number, height: number): Layout => ({
  page,
  position: { offset_x: x, offset_y: y, anchor_point: anchor },
  style: { width, height },
});
const FIELDS = [
  { id: 'full-name', type: 'text', placeholder: 'Full name', layout: at(1, 'TOP_LEFT', 72, 144, 220, 24) },
  { id: 'agree', type: 'checkbox', placeholder: 'I agree', layout: at(1, 'TOP_RIGHT', 72, 144, 18, 18) },
  { id: 'paper', type: 'radio', placeholder: 'Paper copy', layout: at(1, 'BOTTOM_LEFT', 72, 200, 18, 18) },
  { id: 'ini', type: 'initials', placeholder: 'Initials', layout: at(1, 'BOTTOM_RIGHT', 72, 72, 60, 36) },
  { id: 'start', type: 'date', placeholder: 'Start date', layout: at(2, 'TOP_LEFT', 300, 100, 150, 24) },
  { id: 'sig', type: 'signature', placeholder: 'Signature', layout: at(2, 'BOTTOM_RIGHT', 72, 72, 180, 40) },
];

/** Where a field's box is, in points from its page's top left corner. */
function pointsOf({ position, style }: Layout) {
  const right = position.anchor_point.endsWith('RIGHT');
  const top = position.anchor_point.startsWith('TOP');
  return {
    x: right ? PAGE.width - position.offset_x - style.width : position.offset_x,
    y: top ? position.offset_y : PAGE.height - position.offset_y - style.height,
    width: style.width,
    height: style.height,
  };
}

async function twoPagePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  for (const title of ['Services agreement, page one', 'Services agreement, page two'])
    pdf.addPage([PAGE.width, PAGE.height]).drawText(title, { x: 72, y: 740, size: 14 });
  return Buffer.from(await pdf.save());
}

/** The control the recipient uses for a field: its input, or the signature and initials fields' button. */
const controlOf = (page: Page, itemId: string, id: string) =>
  page.locator(`.sign-box[data-box-for="${id}"]`).locator('input, button').first();

describe("the recipient's signing page", () => {
  const world = useAppAndBrowser();
  let contractId: string;

  beforeAll(async () => {
    const app = world.app;
    const uploaded = await upload(app.app, app.tenant.apiKey, '/contracts', await twoPagePdf(), {
      filename: 'Services agreement.pdf',
      type: 'application/pdf',
    });
    expect(uploaded.statusCode).toBe(200);
    contractId = uploaded.json().id;
    const placed = await client(app.app, app.tenant.apiKey).patch(`/contracts/${contractId}`, { fields: FIELDS });
    expect(placed.statusCode).toBe(200);
  });

  it.each([
    ['phone', 360, 740],
    ['desktop', 1280, 900],
  ])('should place each field in its box on the drawn pages on a %s, and sign them', async (name, width, height) => {
    const app = world.app;
    const created = await createPortalRequest(app, {
      name: `Agreement on a ${name}`,
      items: [
        { name: 'Services agreement', type: 'E_SIGNATURE', contractId, required: true },
        { name: 'Anything else?', type: 'QUESTION', required: false },
      ],
      recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: `ana.${name}@example.com`, auth_method: 'NONE' }],
    });
    const itemId = created.items[0].id;
    const { context, outside } = await openContext(world.browser, app.origin, { viewport: { width, height } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(created.recipients[0].request_link);
    await page.locator(`.sign-pages[data-item="${itemId}"]:not([hidden]) .sign-page canvas[width]`).first().waitFor();
    // The list is hidden once its inputs are on the pages.
    await expect(page.locator(`#item-${itemId} .sign-fields`).isHidden()).resolves.toBe(true);

    for (const field of FIELDS) {
      const sheet = (await page.locator(`.sign-page[data-page="${field.layout.page}"]`).boundingBox())!;
      const scale = sheet.width / PAGE.width;
      const box = pointsOf(field.layout);
      const expected = {
        left: sheet.x + box.x * scale,
        top: sheet.y + box.y * scale,
        right: sheet.x + (box.x + box.width) * scale,
        bottom: sheet.y + (box.y + box.height) * scale,
      };
      const control = controlOf(page, itemId, field.id);
      const got = (await control.boundingBox())!;
      if (['signature', 'initials'].includes(field.type)) {
        // A "Sign here" button covers its box, centred on it, and its words are whole even in a small box on a
        // phone: nothing cut short, at least 12 px tall letters, a target at least 24 px.
        expect(got.x).toBeLessThanOrEqual(expected.left + 1);
        expect(got.y).toBeLessThanOrEqual(expected.top + 1);
        expect(got.x + got.width).toBeGreaterThanOrEqual(expected.right - 1);
        expect(got.y + got.height).toBeGreaterThanOrEqual(expected.bottom - 1);
        expect(Math.abs(got.x + got.width / 2 - (expected.left + expected.right) / 2)).toBeLessThanOrEqual(1);
        expect(Math.min(got.width, got.height)).toBeGreaterThanOrEqual(24);
        expect(got.x).toBeGreaterThanOrEqual(sheet.x - 1);
        expect(got.x + got.width).toBeLessThanOrEqual(sheet.x + sheet.width + 1);
        const whole = await control.evaluate((button: any) => ({
          fits: button.scrollWidth <= button.clientWidth + 1 && button.scrollHeight <= button.clientHeight + 1,
          size: parseFloat(button.ownerDocument.defaultView.getComputedStyle(button).fontSize),
        }));
        expect([field.id, whole.fits, whole.size >= 12]).toEqual([field.id, true, true]);
        expect(await control.textContent()).toContain(field.placeholder);
        continue;
      }
      // Inside its box (a pixel for rounding), and filling most of it: it is the box, not somewhere near it.
      expect(got.x).toBeGreaterThanOrEqual(expected.left - 1);
      expect(got.y).toBeGreaterThanOrEqual(expected.top - 1);
      expect(got.x + got.width).toBeLessThanOrEqual(expected.right + 1);
      expect(got.y + got.height).toBeLessThanOrEqual(expected.bottom + 1);
      expect(got.width).toBeGreaterThanOrEqual((expected.right - expected.left) * 0.8);
      // Named by the field's name for a screen reader.
      const named = await page.locator(`label[for="${await control.getAttribute('id')}"]`).textContent();
      expect(named).toContain(field.placeholder);
    }
    // The page fits the screen: nothing to scroll sideways.
    await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(width);

    // The keyboard goes through the fields in reading order: page one top to bottom, then page two (a date
    // input takes a Tab for each of its parts).
    const focused = () => page.evaluate<string>(`document.activeElement?.closest('.sign-box')?.dataset.boxFor ?? ''`);
    await controlOf(page, itemId, 'full-name').focus();
    const order = [await focused()];
    for (let presses = 0; order.length < FIELDS.length && presses < 12; presses++) {
      await page.keyboard.press('Tab');
      const now = await focused();
      if (now !== order.at(-1)) order.push(now);
    }
    expect(order).toEqual(['full-name', 'agree', 'paper', 'ini', 'start', 'sig']);

    await controlOf(page, itemId, 'full-name').fill(`Ana Diaz on a ${name}`);
    await controlOf(page, itemId, 'agree').check();
    await controlOf(page, itemId, 'paper').check();
    await controlOf(page, itemId, 'start').fill('2027-02-01');
    await screenshot(page, `signing-page-${width}-filled`);
    // Answering another item redraws the page from the server's answer: what is filled in here stays.
    const questionId = created.items[1].id;
    await page.locator(`#answer-${questionId}`).fill('No');
    await page.locator(`#save-${questionId}`).click();
    // Redrawn: the answer is the textarea's own text now, not only its typed value.
    await page.locator(`#answer-${questionId}:has-text("No")`).waitFor();
    await expect(controlOf(page, itemId, 'agree').isChecked()).resolves.toBe(true);
    await expect(controlOf(page, itemId, 'paper').isChecked()).resolves.toBe(true);
    await expect(controlOf(page, itemId, 'full-name').inputValue()).resolves.toBe(`Ana Diaz on a ${name}`);
    // The signature field's button takes the recipient to the signature step.
    await controlOf(page, itemId, 'sig').click();
    await expect(page.evaluate<string>('document.activeElement?.id')).resolves.toBe(`sig-${itemId}-text`);
    await page.keyboard.type('Ana Diaz');
    await page.locator(`#sign-${itemId}`).click();
    await page.locator(`#item-${itemId}[data-status="COMPLETE"]`).waitFor();
    // Signed, the pages drawn are the signed copy's: the signature's box shows the typed name stamped in it.
    const signedPage = page.locator(
      `.sign-pages[data-item="${itemId}"][data-src]:not([hidden]) .sign-page[data-page="2"]`,
    );
    await signedPage.locator('canvas[width]').waitFor();
    const sig = pointsOf(FIELDS.find((field) => field.id === 'sig')!.layout);
    const inkIn = (box: { x: number; y: number; width: number; height: number }) =>
      signedPage.locator('canvas').evaluate(
        (canvas: any, [box, pageWidth]: any) => {
          const k = canvas.width / pageWidth;
          const { data } = canvas
            .getContext('2d')
            .getImageData(box.x * k, box.y * k, Math.max(1, box.width * k), Math.max(1, box.height * k));
          let dark = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && data[i] < 128) dark++;
          return dark;
        },
        [box, PAGE.width],
      );
    expect(await eventually(async () => (await inkIn(sig)) > 20)).toBe(true);
    await signedPage.scrollIntoViewIfNeeded();
    await screenshot(page, `signing-page-${width}-signed`);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    const owner = client(app.app, app.tenant.apiKey);
    const [document] = (await owner.get(`/requests/${created.id}/items/${itemId}/documents`)).json() as {
      id: string;
    }[];
    const signed = (await owner.get(`/documents/${document.id}/download`)).rawPayload;
    const path = join(ARTIFACTS, `signing-page-${width}.pdf`);
    writeFileSync(path, signed);
    const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    expect(text).toContain(`Ana Diaz on a ${name}`);
    expect(text).toContain('2027-02-01');
    expect(text).toMatch(/agree \(CHECKBOX, page 1\)\s+checked/);
    expect(text).toMatch(/paper \(RADIO, page 1\)\s+checked/);
    expect(text).toMatch(/sig \(SIGNATURE, page 2\)\s+typed: Ana Diaz/);
  });
});
