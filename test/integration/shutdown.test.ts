import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { workerDatabaseUrl } from '../support/app';
import { freePort, scratchDir, startService, type RunningService } from '../support/service';
import { subscribe, untilSubscribed, wsClient } from '../support/ws';

/** Whether something listens on a local port (the embedded PostgreSQL, once the service stopped). */
const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const probe = createServer()
      .once('error', () => done(true))
      .listen(port, '127.0.0.1', () => probe.close(() => done(false)));
  });

// A real process on its own embedded PostgreSQL: started fresh, stopped by SIGTERM under load, started
// again, stopped by a terminal's Ctrl-C (SIGINT to the whole process group, the database's too).
const METRICS_TOKEN = 'shutdown-test-metrics-token';

describe('the service process', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: RunningService | undefined;
  // Every start, so a test that timed out while one was on its way leaves no process behind.
  const starts: Promise<RunningService>[] = [];
  const start = (variables: Record<string, string>) => {
    const starting = startService(variables);
    starts.push(starting);
    return starting;
  };
  let apiKey: string;
  beforeAll(async () => {
    dataDir = scratchDir('gather-shutdown-');
    env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), METRICS_TOKEN };
  });
  afterAll(async () => {
    for (const started of await Promise.all(starts.map((starting) => starting.catch(() => undefined))))
      await started?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const url = (path: string) => `http://127.0.0.1:${service!.port}${path}`;
  // Drafts: nobody to notify, no SMTP needed.
  const draft = (name: string) =>
    JSON.stringify({
      name,
      draft: true,
      items: [{ name: 'ID', type: 'UPLOAD' }],
      recipients: [{ first_name: 'Ana', email: 'ana@example.com' }],
    });
  const auth = () => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });
  const subscriptionsHeld = async () => {
    const page = await (await fetch(url('/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    return Number(/^gather_subscriptions (\d+)$/m.exec(page)?.[1] ?? 0);
  };
  const subscribers = async (count: number) => {
    const watchers = Array.from({ length: count }, () => {
      const { client, closes } = wsClient(`ws://127.0.0.1:${service!.port}/graphql`, { apiKey });
      return { closes, subscription: subscribe(client, 'subscription { requestCreated { id } }') };
    });
    await untilSubscribed(subscriptionsHeld, count, 20_000);
    return watchers;
  };

  it('should say each step of a first start as it begins', async () => {
    service = await start(env);
    const output = service.output();
    const steps = [
      'initialising the embedded PostgreSQL',
      'starting the embedded PostgreSQL',
      'applying',
      'database ready',
      'Server listening',
    ];
    const at = steps.map((step) => output.indexOf(step));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    apiKey = /First admin API key \(shown once, store it now\): (\S+)/.exec(output)![1];
    // Every URL the README's table lists, at the address it listens on.
    for (const path of [
      '/graphql',
      '/graphiql',
      '/docs',
      '/openapi.json',
      '/app',
      '/dashboard',
      '/r/{token}',
      '/healthz',
      '/readyz',
      '/metrics',
    ])
      expect(output).toContain(`http://127.0.0.1:${service.port}${path} `);
  });

  it('should refuse a second start on the taken EMBEDDED_PG_PORT, saying what to set', async () => {
    const otherDir = scratchDir('gather-other-');
    try {
      const failure = await start({ ...env, DATA_DIR: otherDir }).then(
        () => 'started',
        (err: Error) => err.message,
      );
      expect(failure).toMatch(
        /Gather failed to start: Error: EMBEDDED_PG_PORT \d+ is taken by another program.*Set EMBEDDED_PG_PORT to a free port/,
      );
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('should refuse a second start on the taken PORT, saying what to set', async () => {
    // The test run's own database: this start gets as far as listening.
    const failure = await start({ DATABASE_URL: workerDatabaseUrl(), PORT: String(service!.port) }).then(
      () => 'started',
      (err: Error) => err.message,
    );
    expect(failure).toContain(`Gather failed to start: port ${service!.port} on 127.0.0.1 is already in use`);
    expect(failure).toContain(`PORT=${service!.port + 1} npm start`);
    expect(failure).not.toMatch(/\n\s+at /);
  });

  // Answered 200 before the SIGTERM that followed.
  const acknowledged: string[] = [];

  it('should stop on SIGTERM during a burst of creates, closing subscribers with 1001', async () => {
    const watchers = await subscribers(3);
    const first = await fetch(url('/requests'), { method: 'POST', headers: auth(), body: draft('Before the burst') });
    expect(first.status).toBe(200);
    // The process's first event (its first render, its first subscription run) is slow on a busy machine.
    for (const watcher of watchers) await watcher.subscription.next(20_000);

    acknowledged.push(((await first.json()) as { id: string }).id);
    let refused = 0;
    let signalled: Promise<number | null> | undefined;
    // Eight clients creating in a loop until the service stops answering; SIGTERM once 20 are in.
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let n = 0; ; n++) {
          const response = await fetch(url('/requests'), {
            method: 'POST',
            headers: auth(),
            body: draft(`Burst ${client}.${n}`),
          }).catch(
            // The listener is gone: the connection is refused or reset before any answer.
            () => undefined,
          );
          if (response?.status !== 200) {
            // Fastify answers 503 to requests arriving on an open connection while it closes.
            if (response) expect(response.status).toBe(503);
            refused++;
            return;
          }
          acknowledged.push(((await response.json()) as { id: string }).id);
          if (acknowledged.length === 20) signalled = service!.stop('SIGTERM');
        }
      }),
    );
    const code = await signalled;
    expect(code).toBe(0);
    expect(service!.output()).toContain('stopped');
    expect(refused).toBe(8);
    for (const watcher of watchers) expect(watcher.closes.map((close) => close.code)).toEqual([1001]);
  });

  it('should find every acknowledged create after a restart', async () => {
    service = await start(env);
    const missing: string[] = [];
    for (const id of acknowledged) {
      const response = await fetch(url(`/requests/${id}`), { headers: auth() });
      if (response.status !== 200) missing.push(`${id}: ${response.status}`);
    }
    expect(missing).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
  });

  it('should stop cleanly on Ctrl-C with a subscriber connected, stopping the database last', async () => {
    const [watcher] = await subscribers(1);
    const created = await fetch(url('/requests'), { method: 'POST', headers: auth(), body: draft('Before Ctrl-C') });
    expect(created.status).toBe(200);
    await watcher.subscription.next(20_000);

    expect(await service!.interrupt()).toBe(0);
    const output = service!.output();
    service = undefined;
    expect(output).toContain('stopped');
    // The listener did not lose its connection under a database stopped first.
    expect(output).not.toContain('event listener connection lost');
    expect(watcher.closes.map((close) => close.code)).toEqual([1001]);
    expect(await listening(Number(env.EMBEDDED_PG_PORT))).toBe(false);
  });
});
