import { createTenant, createTestApp, workerDatabaseUrl, type TestApp, type Tenant } from '../../support/app';
import { eventually, requestBody } from '../../support/fixtures';
import { startReceiver } from '../../support/receiver';
import { startService, type RunningService } from '../../support/service';

const EVENTS = 12;

describe('webhook delivery across a crash', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let service: RunningService | undefined;
  // The restarted instance frees the jobs the killed one held (its liveness check, within a second) and runs them.
  const env = () => ({
    DATABASE_URL: workerDatabaseUrl(),
    GATHER_SECRET: 's'.repeat(40),
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await receiver.close();
    await t.close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${service!.port}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { id: string; secret?: string };
  };

  it('should deliver every event after a SIGKILL with deliveries pending and in flight', async () => {
    service = await startService(env());
    const webhook = await post('/webhooks', { endpoint: receiver.url, topics: ['request.created'] });
    // A slow receiver keeps deliveries in flight when the process dies.
    receiver.setResponder(() => ({ status: 200, delayMs: 400 }));
    for (let i = 0; i < EVENTS; i++) await post('/requests', requestBody({ name: `crash ${i}` }));
    await eventually(async () => receiver.incoming() >= 1);

    expect(await service.stop('SIGKILL')).toBeNull();
    const beforeRestart = new Set(receiver.received.map((d) => d.json.event_id)).size;
    expect(beforeRestart).toBeLessThan(EVENTS);

    service = await startService(env());
    await eventually(async () => new Set(receiver.received.map((d) => d.json.event_id)).size === EVENTS, 30_000);
    const delivered = new Map(receiver.received.map((d) => [d.json.event_id as string, d]));
    expect([...delivered.values()].map((d) => d.json.data.name).sort()).toEqual(
      Array.from({ length: EVENTS }, (_, i) => `crash ${i}`).sort(),
    );
    for (const delivery of delivered.values())
      expect(receiver.verify(delivery, webhook.secret!)).toEqual(delivery.json);
    // At least once: a delivery cut off by the crash may arrive twice, with the same webhook-id.
    expect(receiver.received.length).toBeGreaterThanOrEqual(EVENTS);
    const statuses = await eventually(async () => {
      const rows = await t.orm.em
        .fork()
        .execute<{ status: string }[]>(`select status from webhook_delivery where webhook_id = ?`, [webhook.id]);
      return rows.length === EVENTS && rows.every((row) => row.status === 'SUCCEEDED') && rows;
    }, 15_000);
    expect(statuses).toHaveLength(EVENTS);
  }, 90_000);
});
