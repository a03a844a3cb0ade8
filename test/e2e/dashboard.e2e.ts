import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Page } from 'playwright-core';
import { client } from '../support/app';
import { signedIn, tokenOf } from '../support/portal';
import { openContext, screenshot } from './support/browser';
import { useAppAndBrowser } from './support/server';

// The live dashboard in headless Chromium: an owner pastes a key and watches requests change as
// the API and recipients act on them; its connection is cut and restored, and the page ends up as
// the server is. The browser reaches the service through a TCP relay this file can cut.

type Relay = { origin: string; cut(): void; restore(): void; close(): Promise<void> };

/** A TCP relay to `port`: `cut` drops every connection through it and refuses new ones until `restore`. */
async function startRelay(port: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let up = true;
  const server = createServer((inbound) => {
    if (!up) return void inbound.destroy();
    const outbound = connect(port, '127.0.0.1');
    const end = () => {
      inbound.destroy();
      outbound.destroy();
      sockets.delete(inbound);
      sockets.delete(outbound);
    };
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', end).on('close', end);
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      up = true;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Within this time a change made through the API shows on the page (the issue's promise). */
const LIVE_MS = 1000;

const requestRow = (page: Page, id: string) => page.locator(`.request[data-id="${id}"]`);
const listedIds = (page: Page): Promise<string[]> =>
  page.locator('#requests .request').evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute('data-id')));
/**
 * Waits until the page counts `expected` requests in `state`. A locator, not `waitForFunction`: that
 * evaluates its expression again at every poll, which the page's CSP (no 'unsafe-eval') refuses once
 * the first check has failed.
 */
const countShown = (page: Page, state: string, expected: number, timeout?: number) =>
  page
    .locator(`#counts .count[data-state="${state}"] .count-value`)
    .filter({ hasText: new RegExp(`^${expected}$`) })
    .waitFor({ timeout });
const shownCount = (page: Page, state: string) =>
  page.locator(`#counts .count[data-state="${state}"] .count-value`).textContent();

describe('live dashboard', () => {
  const world = useAppAndBrowser();
  let relay: Relay;
  let api: ReturnType<typeof client>;
  let page: Page;
  let outside: string[];

  beforeAll(async () => {
    relay = await startRelay(Number(new URL(world.app.origin).port));
    api = client(world.app.app, world.app.tenant.apiKey);
    const opened = await openContext(world.browser, relay.origin, { viewport: { width: 1280, height: 900 } });
    outside = opened.outside;
    page = await opened.context.newPage();
    page.on('console', (message) => process.env.E2E_LOG && console.log(`page: ${message.text()}`));
  });
  afterAll(async () => {
    await page?.context().close();
    await relay?.close();
  });

  async function create(
    name: string,
    items: unknown[] = [
      { name: 'Passport', type: 'UPLOAD', required: true },
      { name: 'Start date?', type: 'QUESTION', required: true },
    ],
  ) {
    const response = await api.post('/requests', {
      name,
      items,
      recipients: [
        { first_name: 'Ana', last_name: 'Diaz', email: `ana-${Date.now()}@example.com`, auth_method: 'NONE' },
        { first_name: 'Bo', email: `bo-${Date.now()}@example.com`, auth_method: 'NONE' },
      ],
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  /** Waits for the page to show what `wait` looks for, at most LIVE_MS after the change. */
  async function shownLive(wait: (timeout: number) => Promise<unknown>) {
    await wait(LIVE_MS);
  }

  it('should ask for a key, keep it in session storage only, and load from Gather alone', async () => {
    const response = await page.goto(`${relay.origin}/dashboard`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.fill('#key', 'gth_not_a_key_not_a_key_not_a_key_not_a_key_00');
    await page.click('#key-form button');
    await page.locator('#key-error', { hasText: 'not accepted' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('gather.dashboard.key')")).toBeNull();

    await page.fill('#key', world.app.tenant.apiKey);
    await page.click('#key-form button');
    await page.locator('#status[data-state="up"]').waitFor();
    expect(
      await page.evaluate("[sessionStorage.getItem('gather.dashboard.key'), localStorage.length, document.cookie]"),
    ).toEqual([world.app.tenant.apiKey, 0, '']);
    expect(await page.locator('#org').textContent()).toContain('Acme Accounting');
    // A reload keeps watching with the key of this tab.
    await page.reload();
    await page.locator('#status[data-state="up"]').waitFor();
    expect(outside).toEqual([]);
  });

  /** Waits until every count the page shows is the server's: the counts follow the list after a debounce. */
  const countsAsServer = async () => {
    const states: string[] = await page
      .locator('#counts .count')
      .evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute('data-state')));
    const server = await api.graphql(
      `{ ${states.map((state) => `${state}: requests(filter: { states: [${state}] }, first: 1) { totalCount }`).join(' ')} }`,
    );
    for (const state of states) await countShown(page, state, server.data[state].totalCount, LIVE_MS);
  };

  it('should show a request created and changed through REST within a second, reordered as its recipient acts', async () => {
    const first = await create('Onboarding documents');
    await shownLive((timeout) => requestRow(page, first.id).waitFor({ timeout }));
    const second = await create('Tax documents 2026');
    await shownLive((timeout) => requestRow(page, second.id).waitFor({ timeout }));
    expect((await listedIds(page)).slice(0, 2)).toEqual([second.id, first.id]);
    // Every recipient works on all the request's items, not only the first (each item's assignee).
    await expect(requestRow(page, first.id).locator('.recipient').allTextContents()).resolves.toEqual([
      'Ana Diaz0 of 2 items',
      'Bo0 of 2 items',
    ]);

    expect((await api.patch(`/requests/${first.id}`, { name: 'Onboarding documents (Ana)' })).statusCode).toBe(200);
    await shownLive((timeout) =>
      requestRow(page, first.id)
        .locator('.request-name', { hasText: 'Onboarding documents (Ana)' })
        .waitFor({ timeout }),
    );

    // The recipient answers the question through its link: the request moves up, its item and progress change.
    const recipient = await signedIn(world.app.app, tokenOf(first.recipients[0].request_link));
    const question = first.items.find((item: { type: string }) => item.type === 'QUESTION');
    expect((await recipient.answer(question.id, 'January 5')).statusCode).toBe(200);
    await shownLive((timeout) =>
      requestRow(page, first.id)
        .locator('.recipient-progress', { hasText: '1 of 2 items' })
        .last()
        .waitFor({ timeout }),
    );
    await expect(requestRow(page, first.id).locator('.recipient-progress').allTextContents()).resolves.toEqual([
      '1 of 2 items',
      '1 of 2 items',
    ]);
    expect((await listedIds(page)).slice(0, 2)).toEqual([first.id, second.id]);
    await expect(requestRow(page, first.id).locator(`.item[data-status="COMPLETE"]`).textContent()).resolves.toBe(
      'Start date?',
    );
    await expect(requestRow(page, first.id).locator('.percent').textContent()).resolves.toBe('50%');

    // The owner verifies it: the chip turns verified; the counts follow the server's.
    expect((await api.post(`/requests/${first.id}/items/${question.id}/verify`)).statusCode).toBe(200);
    await shownLive((timeout) =>
      requestRow(page, first.id).locator('.item[data-status="VERIFIED"]').waitFor({ timeout }),
    );
    await page.locator('#feed .event[data-topic="ITEM_VERIFIED"]').waitFor({ timeout: LIVE_MS });
    await countShown(page, 'INCOMPLETE_AND_LINK_SENT', 2, LIVE_MS);

    // A request whose every required item is complete counts on today's bar of the chart.
    const quick = await create('Quick question', [{ name: 'Your name?', type: 'QUESTION', required: true }]);
    const quickRecipient = await signedIn(world.app.app, tokenOf(quick.recipients[0].request_link));
    expect((await quickRecipient.answer(quick.items[0].id, 'Ana')).statusCode).toBe(200);
    expect((await quickRecipient.submit()).statusCode).toBe(200);
    await shownLive((timeout) => page.locator('#chart .day[data-count="1"]').last().waitFor({ timeout }));
    await shownLive((timeout) =>
      requestRow(page, quick.id).locator('.badge', { hasText: 'Complete' }).waitFor({ timeout }),
    );

    await countsAsServer();
    await screenshot(page, 'dashboard-01-1280');
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, 'dashboard-02-360');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(outside).toEqual([]);
  });

  it('should reconnect after the connection is cut and end up as the server is', async () => {
    const before = await listedIds(page);
    const [kept, removed] = [before[0], before[1]];
    relay.cut();
    await page.locator('#status[data-state="down"]').waitFor();

    // While the page cannot hear: a request created, one renamed, one deleted.
    const missed = await create('Created while offline');
    expect((await api.patch(`/requests/${kept}`, { name: 'Renamed while offline' })).statusCode).toBe(200);
    expect((await api.delete(`/requests/${removed}`)).statusCode).toBe(204);
    expect(await requestRow(page, missed.id).count()).toBe(0);

    relay.restore();
    await page.locator('#status[data-state="up"]').waitFor({ timeout: 15_000 });
    await requestRow(page, missed.id).waitFor();
    await requestRow(page, kept).locator('.request-name', { hasText: 'Renamed while offline' }).waitFor();
    await requestRow(page, removed).waitFor({ state: 'detached' });

    // The page matches the server: the same requests, the same counts, each event once.
    const server = await api.graphql(
      `{ requests(first: 100) { nodes { id name } } sent: requests(filter: { states: [INCOMPLETE_AND_LINK_SENT] }, first: 1) { totalCount } }`,
    );
    expect(new Set(await listedIds(page))).toEqual(
      new Set(server.data.requests.nodes.map((r: { id: string }) => r.id)),
    );
    await countShown(page, 'INCOMPLETE_AND_LINK_SENT', server.data.sent.totalCount);
    await expect(shownCount(page, 'INCOMPLETE_AND_LINK_SENT')).resolves.toBe(String(server.data.sent.totalCount));
    const feed = await page
      .locator('#feed .event')
      .evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute('data-event')));
    expect(new Set(feed).size).toBe(feed.length);
    expect(await page.locator('#feed .event[data-topic="REQUEST_DELETED"]').count()).toBe(1);

    // And it stays live after the reconnection.
    const after = await create('After the reconnection');
    await shownLive((timeout) => requestRow(page, after.id).waitFor({ timeout }));
    await countsAsServer();
    await screenshot(page, 'dashboard-03-reconnected');
    expect(outside).toEqual([]);
  });
});
