import type { Browser, BrowserContext, ConsoleMessage, Cookie, Page } from 'playwright-core';
import { client } from '../../support/app';
import { openContext } from './browser';
import type { ListeningApp } from './server';

// An owner's browser session for the console's tests (test/e2e/console.e2e.ts), signed in with the session
// cookie (docs/console.md): POST /auth/sign-in mails a link, its page POSTs /auth/verify, which sets the cookie.

/** The sign-in link mailed to `email` after `after` mails (waits for it). */
async function mailedSignInLink(app: ListeningApp, email: string, after: number, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const links = app.smtp.received
      .slice(after)
      .filter((m) => m.envelopeTo.includes(email))
      .map((m) => /https?:\/\/\S+\/sign-in\/verify\?token=[\w.~%-]+/.exec(m.mail.text ?? '')?.[0])
      .filter((link): link is string => Boolean(link));
    if (links.length) return links[links.length - 1];
    if (Date.now() > deadline) throw new Error(`no sign-in link mailed to ${email} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Signs the browser context in as `email` through the pages: the sign-in form, the mailed link, its
 * button. The page ends at `next`. Answers false when a page's form was refused as cross-site.
 */
export async function signInByPages(app: ListeningApp, page: Page, email: string, next = '/app'): Promise<boolean> {
  const mails = app.smtp.received.length;
  await page.goto(`${app.origin}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel(/e-?mail/i).fill(email);
  await page.getByRole('button').first().click();
  await page.waitForLoadState();
  if ((await page.locator('body').innerText()).includes('Cross-site request refused')) return false;
  const link = await mailedSignInLink(app, email, mails);
  await page.goto(link.replace(/^https?:\/\/[^/]+/, app.origin));
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForLoadState();
  if ((await page.locator('body').innerText()).includes('Cross-site request refused')) return false;
  await page.waitForURL((url) => url.pathname.startsWith(next));
  return true;
}

/** Signs the browser context in through the sign-in API (docs/console.md): the mailed link's token, verified. */
export async function signInByApi(app: ListeningApp, page: Page, email: string, next = '/app'): Promise<void> {
  const mails = app.smtp.received.length;
  const headers = { origin: app.origin };
  const asked = await page.context().request.post(`${app.origin}/auth/sign-in`, { data: { email, next }, headers });
  if (asked.status() !== 202) throw new Error(`POST /auth/sign-in answered ${asked.status()}: ${await asked.text()}`);
  const token = new URL(await mailedSignInLink(app, email, mails)).searchParams.get('token');
  const verified = await page.context().request.post(`${app.origin}/auth/verify`, { data: { token }, headers });
  if (verified.status() !== 200)
    throw new Error(`POST /auth/verify answered ${verified.status()}: ${await verified.text()}`);
  await page.goto(`${app.origin}${next}`);
}

/** The session cookies of each user already signed in, by service and API key. */
const sessions = new WeakMap<ListeningApp, Map<string, Cookie[]>>();

export type OwnerPage = { context: BrowserContext; page: Page; errors: string[]; outside: string[] };

/**
 * A browser context signed in as the tenant's admin (Olga Ops), or as the user of `apiKey`, its page
 * recording script and console errors (a CSP refusal among them) and every request to another origin.
 */
export async function ownerPage(
  browser: Browser,
  app: ListeningApp,
  viewport = { width: 1280, height: 900 },
  apiKey = app.tenant.apiKey,
): Promise<OwnerPage> {
  const { context, outside } = await openContext(browser, app.origin, { viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
    if (process.env.E2E_LOG) console.log(`page: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    if (process.env.E2E_LOG) console.log(`failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  // The pages' own test is in console.e2e.ts; here the owner only needs a session: one per user and service,
  // as sign-in links are few per e-mail address (SIGN_IN_LINKS_PER_EMAIL), shared by the contexts that need it.
  const known = sessions.get(app) ?? new Map<string, Cookie[]>();
  sessions.set(app, known);
  const cookies = known.get(apiKey);
  if (cookies) {
    await context.addCookies(cookies);
    await page.goto(`${app.origin}/app`);
  } else {
    const viewer = await client(app.app, apiKey).graphql('{ viewer { email } }');
    await signInByApi(app, page, viewer.data.viewer.email);
    known.set(apiKey, await context.cookies(app.origin));
  }
  return { context, page, errors, outside };
}
