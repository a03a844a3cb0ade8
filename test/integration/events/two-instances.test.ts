import { client, createTenant, createTestApp, workerDatabaseUrl, type TestApp, type Tenant } from '../../support/app';
import { requestBody } from '../../support/fixtures';
import { startService, type RunningService } from '../../support/service';
import { subscribe, wsClient } from '../../support/ws';

describe('events across instances', () => {
  let t: TestApp;
  let tenant: Tenant;
  let one: RunningService;
  let two: RunningService;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    // Two real processes on one database, as behind a load balancer.
    const env = { DATABASE_URL: workerDatabaseUrl(), GATHER_SECRET: 's'.repeat(40), LOG_LEVEL: 'warn' };
    [one, two] = await Promise.all([startService(env), startService(env)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await t.close();
  });

  it('should deliver an event caused on instance 1 to a subscriber connected to instance 2', async () => {
    const { client: ws } = wsClient(`ws://127.0.0.1:${two.port}/graphql`, { authorization: `Bearer ${tenant.apiKey}` });
    try {
      const sub = subscribe(ws, 'subscription { requestCreated { id name } }');
      // The subscription is live once a probe made on instance 2 itself comes back; a probe made
      // before the subscription arrived never comes, so another is made until one does.
      for (let attempt = 0; ; attempt++) {
        const probe = await fetchJson(two.port, tenant.apiKey, { name: `probe ${attempt}` });
        const arrived = await sub.next(1000).catch(() => null);
        if (arrived) {
          expect(arrived.data).toEqual({ requestCreated: { id: probe.id, name: `probe ${attempt}` } });
          break;
        }
        if (attempt === 20) throw new Error('the subscription never became live');
      }

      const created = await fetchJson(one.port, tenant.apiKey, { name: 'Made on instance 1' });
      expect((await sub.next(10_000)).data).toEqual({ requestCreated: { id: created.id, name: 'Made on instance 1' } });
    } finally {
      await ws.dispose();
    }
    // The same change is visible to the in-process app too: both instances read one database.
    expect(
      (await client(t.app, tenant.apiKey).get('/requests?limit=5')).json().map((r: { name: string }) => r.name),
    ).toContain('Made on instance 1');
  });
});

async function fetchJson(port: number, key: string, overrides: Record<string, unknown>): Promise<{ id: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/requests`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(requestBody(overrides)),
  });
  if (response.status !== 200) throw new Error(`POST /requests answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string };
}
