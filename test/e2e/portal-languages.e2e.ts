import { CATALOGS, t } from '../../src/i18n/i18n';
import type { Language } from '../../src/modules/requests/request.enums';
import { openContext, screenshot } from './support/browser';
import { createPortalRequest } from './support/recipient';
import { useAppAndBrowser } from './support/server';

// The portal in four scripts on a 360 px phone: French, Chinese, Arabic (right to left) and Punjabi
// (Gurmukhi). Each page is in its language from top to bottom, fits the screen, and the Arabic one is
// mirrored: its checklist marks and borders on the right. Then the recipient switches the page's language.

describe('portal languages', () => {
  const world = useAppAndBrowser();

  const open = async (language: Language) => {
    const created = await createPortalRequest(world.app, {
      name: 'Documents 2026',
      language,
      personal_message: '—',
      due_date: '2027-01-15T17:00:00Z',
      items: [
        { name: 'W-2', type: 'UPLOAD', required: true },
        { name: '1099-INT', type: 'UPLOAD', required: false },
        { name: '?', type: 'QUESTION', required: false },
      ],
      recipients: [{ first_name: 'Ana', email: `ana.${language}@example.com`, auth_method: { type: 'NONE' } }],
    });
    const { context, outside } = await openContext(world.browser, world.app.origin);
    const page = await context.newPage();
    const response = await page.goto(created.recipients[0].request_link);
    expect(response!.status()).toBe(200);
    return { page, context, outside };
  };

  it.each([
    ['fr', 'ltr'],
    ['zh', 'ltr'],
    ['ar', 'rtl'],
    ['pa', 'ltr'],
  ] as const)('should show the portal in %s (%s) on a 360 px screen', async (language, dir) => {
    const { page, context, outside } = await open(language);
    const texts = CATALOGS[language].portal;
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe(language);
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe(dir);
    await expect(page.locator('#progress span').textContent()).resolves.toBe(
      t(language, 'portal.progress', { done: 0, total: 3 }),
    );
    await expect(page.locator('.item .tag.req').first().textContent()).resolves.toBe(texts.required);
    await expect(page.locator('label.button').first().textContent()).resolves.toBe(texts.chooseFiles);
    await expect(page.locator('#submit-button').textContent()).resolves.toBe(
      t(language, 'portal.submit', { owner: 'Olga Ops' }),
    );
    await expect(page.locator('select#language').inputValue()).resolves.toBe(language);
    // Nothing wider than the screen, whichever way the text runs.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    // Mirrored: the item's mark sits at the start of the line, on the right in Arabic.
    const mark = (await page.locator('.item .mark').first().boundingBox())!;
    const title = (await page.locator('.item h3').first().boundingBox())!;
    expect(dir === 'rtl' ? mark.x > title.x : mark.x < title.x).toBe(true);
    await screenshot(page, `languages-${language}`);
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should switch the page to the language the recipient picks, and keep it on the next view', async () => {
    const { page, context } = await open('es');
    await expect(page.locator('#checklist-title').textContent()).resolves.toMatch(/^Lo que/);
    await page.locator('select#language').selectOption('he');
    await page.locator('form.language button').click();
    await page.waitForFunction("document.documentElement.lang === 'he'");
    expect(new URL(page.url()).search).toBe('');
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
    await expect(page.locator('#progress span').textContent()).resolves.toBe(
      t('he', 'portal.progress', { done: 0, total: 3 }),
    );
    await page.reload();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('he');
    await screenshot(page, 'languages-switched-he');
    await context.close();
  });
});
