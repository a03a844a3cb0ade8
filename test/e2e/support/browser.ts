import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (scripts/e2e.sh installs it); playwright-core downloads no browser of its own. */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');

export const PHONE = { width: 360, height: 740 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/**
 * A browser context of its own (cookies, viewport, language) that lets the page reach only `origin`:
 * any other request is aborted and recorded, so a test can assert the portal fetches nothing from outside.
 */
export async function openContext(
  browser: Browser,
  origin: string,
  options: { viewport?: { width: number; height: number }; locale?: string } = {},
) {
  const context: BrowserContext = await browser.newContext({
    viewport: options.viewport ?? PHONE,
    locale: options.locale ?? 'en-US',
    hasTouch: true,
    deviceScaleFactor: 1,
  });
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    // The browser's own pages (its PDF viewer shows a previewed PDF) are no other origin.
    const own = url.startsWith('chrome-extension://') || url.startsWith('chrome://');
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:') || own) return route.continue();
    outside.push(url);
    return route.abort();
  });
  return { context, outside };
}

/** A full-page screenshot into test/artifacts/<name>.png (ignored by git; look at them after a run). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  // From the top: a page scrolled down (a field focused) would draw its sticky header in the middle of the picture.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path, fullPage: true });
  return path;
}
