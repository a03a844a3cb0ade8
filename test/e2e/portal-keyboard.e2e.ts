import type { Page } from 'playwright-core';
import { openContext, screenshot } from './support/browser';
import { createPortalRequest } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// The portal with a keyboard alone: Tab and Enter through sign-in (the password the owner read out,
// in the code field) and an answer, with the focus visible at each stop.

/** Presses Tab until the focused element matches `selector` (at most `limit` presses). */
async function tabTo(page: Page, selector: string, limit = 30): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The focused element's outline, which :focus-visible draws for keyboard users. */
const focusOutline = (page: Page) => page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');

describe('portal with a keyboard alone', () => {
  const world = useAppAndBrowser();

  it('should sign in and answer a question with Tab and Enter', async () => {
    const created = await createPortalRequest(world.app, {
      name: 'Keyboard check',
      items: [{ name: 'What is your tax number?', type: 'QUESTION', required: true }],
      recipients: [{ first_name: 'Kai', email: 'kai@example.com', auth_method: { type: 'EMAIL' } }],
    });
    const { context } = await openContext(world.browser, world.app.origin, { viewport: { width: 1024, height: 768 } });
    const page = await context.newPage();
    await page.goto(created.recipients[0].request_link);

    await tabTo(page, '#signin-code');
    expect(await focusOutline(page)).toBe('solid');
    await page.keyboard.type(created.recipients[0].password);
    await tabTo(page, 'button[type=submit]');
    await screenshot(page, 'keyboard-01-sign-in');
    await page.keyboard.press('Enter');
    await page.locator('#checklist-title').waitFor();

    const question = created.items[0].id;
    await tabTo(page, `#answer-${question}`);
    await page.keyboard.type('12-3456789');
    await tabTo(page, `form[data-item="${question}"] button[type=submit]`);
    expect(await focusOutline(page)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.locator(`#item-${question}[data-status="COMPLETE"]`).waitFor();
    await expect(page.locator('#status').textContent()).resolves.toBe('Answer saved');
    await screenshot(page, 'keyboard-02-answered');
    await context.close();
  });
});
