import { openContext, screenshot } from './support/browser';
import { useAppAndBrowser } from './support/server';

// GraphiQL without internet: its page, scripts and styles come from Gather, and it runs a query
// with the key written in its Headers tab.

describe('GraphiQL', () => {
  const world = useAppAndBrowser();

  it('should load from Gather alone and run a query with the key from its headers', async () => {
    const { context, outside } = await openContext(world.browser, world.app.origin, {
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${world.app.origin}/graphiql`);
    expect(response!.status()).toBe(200);
    await page.locator('.graphiql-container').waitFor();

    // The key goes in the Headers tab; the query in the editor; the result shows the organization.
    await page
      .locator('.graphiql-editor-tool [aria-label="Headers"], .graphiql-editor-tools button:has-text("Headers")')
      .first()
      .click();
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor').last();
    await headers.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${world.app.tenant.apiKey}` }));
    await page.locator('.graphiql-query-editor .graphiql-editor').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('{ organization { name } }');
    await page.locator('.graphiql-execute-button').click();
    await page.locator('.graphiql-response', { hasText: 'Acme Accounting' }).waitFor();
    await screenshot(page, 'graphiql-01');
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  });
});
