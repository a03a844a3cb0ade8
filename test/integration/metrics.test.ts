import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../support/app';
import { createRequest, eventually } from '../support/fixtures';
import { startReceiver } from '../support/receiver';
import { subscribe, untilSubscribed, wsClient } from '../support/ws';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line (`name{labels} value`) of a Prometheus text page. */
function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('should not exist without METRICS_TOKEN', async () => {
    const t = await createTestApp();
    try {
      const tenant = await createTenant(t.db);
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await client(t.app, tenant.apiKey).get('/metrics')).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    let tenant: Tenant;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    beforeAll(async () => {
      t = await createTestApp({ metricsToken: TOKEN });
      tenant = await createTenant(t.db);
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await t.close();
      await receiver.close();
    });

    const scrape = async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return response.body;
    };

    it('should answer 401 to no token, a wrong one, and an API key', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer not-the-metrics-token' },
        { authorization: `Bearer ${tenant.apiKey}` },
        { 'x-api-key': tenant.apiKey },
      ]) {
        const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
        expect({ status: response.statusCode, body: response.json() }).toEqual({
          status: 401,
          body: { detail: 'Not authenticated' },
        });
      }
    });

    it('should count and time REST routes by pattern and GraphQL operations by name', async () => {
      const api = client(t.app, tenant.apiKey);
      const request = await createRequest(t.app, tenant.apiKey);
      await api.get(`/requests/${request.id}`);
      await api.get(`/requests/${request.id}`);
      await api.get('/requests/00000000-0000-0000-0000-000000000000');
      await api.graphql('query Mine { viewer { email } }');
      await api.graphql('{ viewer { email } }');
      const page = await scrape();
      expect(
        sample(
          page,
          'gather_http_request_duration_seconds_count{route="/requests/:request_id",method="GET",status="200"}',
        ),
      ).toBe(2);
      expect(
        sample(
          page,
          'gather_http_request_duration_seconds_count{route="/requests/:request_id",method="GET",status="404"}',
        ),
      ).toBe(1);
      expect(
        sample(page, 'gather_http_request_duration_seconds_count{route="/requests",method="POST",status="200"}'),
      ).toBe(1);
      expect(sample(page, 'gather_graphql_operation_duration_seconds_count{operation="Mine",status="200"}')).toBe(1);
      expect(
        sample(page, 'gather_graphql_operation_duration_seconds_count{operation="(anonymous)",status="200"}'),
      ).toBe(1);
      expect(
        sample(page, 'gather_graphql_operation_duration_seconds_bucket{le="+Inf",operation="Mine",status="200"}'),
      ).toBe(1);
      // The process's own series (prom-client's defaults).
      expect(sample(page, 'gather_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(page).toContain('gather_nodejs_eventloop_lag_p99_seconds');
      // No record id in any label: routes are patterns.
      expect(page).not.toContain(request.id);
    });

    it('should show the webhook outbox waiting, then the attempt by outcome', async () => {
      const api = client(t.app, tenant.apiKey);
      expect((await api.post('/webhooks', { endpoint: receiver.url, topics: ['request.created'] })).statusCode).toBe(
        200,
      );
      await createRequest(t.app, tenant.apiKey);
      // The event's consumer queues the delivery, whose POST the receiver holds while the page is read.
      receiver.setResponder(() => ({ status: 200, delayMs: 500 }));
      const running = t.app.jobs.runDue();
      await eventually(async () => receiver.incoming() === 1);
      const before = await scrape();
      expect(sample(before, 'gather_webhook_deliveries_due')).toBe(1);
      expect(sample(before, 'gather_webhook_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(before, 'gather_webhook_attempts_total{outcome="succeeded"}')).toBe(0);

      await running;
      expect(receiver.received).toHaveLength(1);
      const after = await scrape();
      expect(sample(after, 'gather_webhook_deliveries_due')).toBe(0);
      expect(sample(after, 'gather_webhook_outbox_lag_seconds')).toBe(0);
      expect(sample(after, 'gather_webhook_attempts_total{outcome="succeeded"}')).toBe(1);
    });

    it('should show the timed-job queue and the pool', async () => {
      await createRequest(t.app, tenant.apiKey, { expiration_date: '2099-01-01T00:00:00Z' });
      const page = await scrape();
      const [{ n }] = await t.orm.em
        .fork()
        .getConnection()
        .execute<{ n: number }[]>(`select count(*)::int as n from job where status = 'PENDING'`);
      expect(n).toBeGreaterThan(0);
      expect(sample(page, 'gather_jobs{state="pending"}')).toBe(n);
      expect(sample(page, 'gather_jobs{state="due"}')).toBe(0);
      expect(sample(page, 'gather_db_pool_connections{state="waiting"}')).toBe(0);
      expect(sample(page, 'gather_db_pool_connections{state="idle"}')).toBeGreaterThan(0);
    });

    it('should count open WebSocket connections and subscriptions', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      const { client: ws } = wsClient(`ws://127.0.0.1:${port}/graphql`, { apiKey: tenant.apiKey });
      const subscription = subscribe(ws, 'subscription { requestCreated { id } }');
      await untilSubscribed(() => t.app.subscriptions.subscriberCount, 1);
      await createRequest(t.app, tenant.apiKey);
      await subscription.next();
      const open = await scrape();
      expect(sample(open, 'gather_websocket_connections')).toBe(1);
      expect(sample(open, 'gather_subscriptions')).toBe(1);
      await ws.dispose();
    });
  });
});
