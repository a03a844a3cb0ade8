import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createTenant, createTestApp } from './app';

/**
 * A graphql-ws client (the protocol's reference implementation) against a listening app; `handshake` adds headers
 * to its WebSocket handshake (a browser's cookie and Origin).
 */
export function wsClient(
  url: string,
  connectionParams: Record<string, unknown> | undefined,
  handshake?: { headers?: Record<string, string>; origin?: string },
) {
  const closes: Array<{ code: number; reason: string }> = [];
  const client: Client = createClient({
    url,
    webSocketImpl: handshake
      ? class extends WebSocket {
          constructor(address: string, protocols?: string | string[]) {
            super(address, protocols, handshake);
          }
        }
      : WebSocket,
    connectionParams,
    retryAttempts: 0,
    // Refused connections are asserted through `closes`, not logged.
    onNonLazyError: () => undefined,
    lazy: false,
    on: {
      closed: (event) =>
        void closes.push({ code: (event as { code: number }).code, reason: (event as { reason: string }).reason }),
    },
  });
  return { client, closes };
}

/**
 * The app listening on a free loopback port, with the organization Acme, for a file's graphql-ws tests:
 * `connect` opens a client with a key as its bearer credential (at the app's `url`, or `at`); `clients`
 * holds what the tests opened (they add raw sockets themselves), disposed of by `close` before the app.
 */
export async function listeningGraphqlApp() {
  const t = await createTestApp();
  const acme = await createTenant(t.db, 'Acme');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`;
  const clients: Array<{ dispose(): Promise<void> | void }> = [];
  return {
    t,
    acme,
    url,
    clients,
    connect(key: string, at = url): Client {
      const { client } = wsClient(at, { authorization: `Bearer ${key}` });
      clients.push(client);
      return client;
    },
    async close(): Promise<void> {
      await Promise.all(clients.map((c) => c.dispose()));
      await t.close();
    },
  };
}

export type ListeningGraphqlApp = Awaited<ReturnType<typeof listeningGraphqlApp>>;

/** What one query or mutation answered: its result (once complete), or the errors of an `error` message. */
export type Outcome = { result?: { data?: any; errors?: any[] }; errors?: any[] };

/** Runs one query or mutation over `client`. */
export function operation(client: Client, query: string, variables?: Record<string, unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    let result: Outcome['result'];
    client.subscribe(
      { query, variables },
      {
        next: (value) => void (result = value as Outcome['result']),
        error: (errors) => resolve({ errors: errors as any[] }),
        complete: () => resolve({ result }),
      },
    );
  });
}

/** A subscription whose results queue up; `next()` waits for the next one (or fails after a timeout). */
export function subscribe<T = any>(client: Client, query: string, variables?: Record<string, unknown>) {
  const results: Array<{ data?: T; errors?: unknown[] }> = [];
  const waiters: Array<(value: { data?: T; errors?: unknown[] }) => void> = [];
  let failure: unknown;
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (value) => {
        const waiter = waiters.shift();
        if (waiter) waiter(value as never);
        else results.push(value as never);
      },
      error: (err) => {
        failure = err;
      },
      complete: () => undefined,
    },
  );
  return {
    dispose,
    get failure() {
      return failure;
    },
    next(timeoutMs = 5000): Promise<{ data?: T; errors?: unknown[] }> {
      const queued = results.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const waiter = (value: { data?: T; errors?: unknown[] }) => {
          clearTimeout(timer);
          resolve(value);
        };
        // A waiter that timed out must not swallow a later result.
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no subscription result within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    pending: () => results.length,
  };
}

/**
 * Waits until the server holds at least `count` subscriptions. Subscribing only sends a message, and an
 * event committed before the server has registered the subscription is, by design, not delivered to it.
 */
export async function untilSubscribed(
  held: () => number | Promise<number>,
  count: number,
  timeoutMs = 5000,
): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    const now = await held();
    if (now >= count) return;
    if (waited > timeoutMs) throw new Error(`the server holds ${now} of ${count} subscriptions after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
