import type { ConsoleMessage, Page } from 'playwright-core';
import { openContext, screenshot } from './support/browser';
import { useAppAndBrowser } from './support/server';

// The pages a newcomer opens first, as the start log lists them: each loads with no error in the
// browser's console, and does what it is for.

describe('the tools a newcomer opens', () => {
  const world = useAppAndBrowser();

  /** A page that records what the browser reports: script errors, console errors (CSP refusals among them). */
  const open = async (viewport = { width: 1280, height: 800 }) => {
    const { context, outside } = await openContext(world.browser, world.app.origin, { viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    return { context, page, errors, outside };
  };

  const visit = async (page: Page, path: string) => {
    const response = await page.goto(`${world.app.origin}${path}`);
    expect([path, response!.status()]).toEqual([path, 200]);
  };

  it('should show the landing page at /, whose every link opens', async () => {
    const { context, page, errors, outside } = await open();
    await visit(page, '/');
    await screenshot(page, 'tools-01-landing');
    const links = (await page.locator('a').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')!))).map(
      (href) => new URL(href, world.app.origin).href,
    );
    expect(links.length).toBeGreaterThanOrEqual(6);
    for (const link of links) {
      const response = await page.request.get(link);
      expect([link, response.status()]).toEqual([link, 200]);
    }
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should open GraphiQL with no error before a key is written, its schema loaded', async () => {
    const { context, page, errors, outside } = await open();
    await visit(page, '/graphiql');
    await page.locator('.graphiql-container').waitFor();
    // The schema came without a key: the documentation explorer lists the root types.
    await page.locator('button[aria-label="Show Documentation Explorer"]').click();
    await page.locator('.graphiql-doc-explorer', { hasText: 'Query' }).waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'tools-02-graphiql-first-load');
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  });

  it('should try GET /whoami on /docs with a key and answer 200, at the address the page was opened at', async () => {
    const { context, page, errors, outside } = await open();
    await visit(page, '/docs/');
    await page.locator('.swagger-ui .information-container').waitFor();
    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.auth-container', { hasText: 'bearerAuth' });
    await dialog.locator('input').fill(world.app.tenant.apiKey);
    await dialog.locator('button.authorize').click();
    await page.locator('.modal-ux button.close-modal').click();
    const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/whoami"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    await expect(operation.locator('.live-responses-table').innerText()).resolves.toContain('Acme Accounting');
    await screenshot(page, 'tools-03-docs-try-it-out');
    // Gather's name in the top bar, not the viewer's own logo.
    expect(await page.locator('.topbar img').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await page.title()).toBe('Gather · REST API');
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  });
});
