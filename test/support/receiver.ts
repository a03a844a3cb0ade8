import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Received = { headers: IncomingHttpHeaders; body: string; json: any };

/**
 * A real HTTP endpoint for webhook deliveries. `respond` decides each answer (status and delay);
 * `verify` checks a delivery's signature with the Standard Webhooks reference library.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let incoming = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let respond: (delivery: Received) => { status: number; delayMs?: number } = () => ({ status: 200 });
  const server: Server = createServer((request, response) => {
    incoming++;
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, body, json: body ? JSON.parse(body) : null };
      const { status, delayMs = 0 } = respond(delivery);
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failed on purpose');
        if (status >= 200 && status < 300) {
          received.push(delivery);
          for (const waiter of waiters.filter((w) => received.length >= w.count)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    /** Deliveries answered with a 2xx, in arrival order. */
    received,
    /** Requests that reached the receiver, answered or not yet. */
    incoming: () => incoming,
    setResponder(fn: typeof respond) {
      respond = fn;
    },
    /** Resolves once `count` deliveries were answered with a 2xx. */
    waitFor(count: number, timeoutMs = 15_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${count} deliveries arrived`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    verify(delivery: Received, secret: string): unknown {
      return new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
