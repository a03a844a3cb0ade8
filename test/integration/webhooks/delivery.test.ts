import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, eventually } from '../../support/fixtures';
import { startReceiver } from '../../support/receiver';
import { addJob } from '../../../src/kernel/jobs/queue';
import {
  attemptCounts,
  deliveryAgents,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  webhookTasks,
} from '../../../src/modules/webhooks/webhook.delivery';
import { deliveryQueue } from '../../../src/modules/webhooks/webhook.service';

describe('webhook delivery, sent by the running job queue', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await createTestApp({}, { runJobs: true });
    await t.app.ready();
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('should post each event signed per Standard Webhooks, with the envelope of API-DECISIONS', async () => {
    const api = client(t.app, tenant.apiKey);
    const webhook = (
      await api.post('/webhooks', {
        endpoint: receiver.url,
        topics: ['request.created', 'request.updated', 'item.deleted'],
      })
    ).json();
    const request = await createRequest(t.app, tenant.apiKey, { name: 'Signed' });
    await api.patch(`/requests/${request.id}`, { name: 'Signed and renamed', notes: 'n' });
    await api.delete(`/requests/${request.id}/items/${request.items[1].id}`);
    await receiver.waitFor(3);

    const [created, updated, deleted] = receiver.received;
    for (const delivery of [created, updated, deleted]) {
      // The reference library accepts the signature (it also checks the timestamp is recent).
      expect(receiver.verify(delivery, webhook.secret)).toEqual(delivery.json);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.event_id);
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    expect(created.json).toEqual({
      event_id: expect.any(String),
      topic: 'request.created',
      organization_id: tenant.organizationId,
      created_at: expect.any(String),
      data: (await api.get(`/requests/${request.id}`)).json() && { ...request, updated_at: expect.any(String) },
    });
    expect(updated.json).toMatchObject({
      topic: 'request.updated',
      updated: ['name', 'notes'],
      data: { id: request.id, name: 'Signed and renamed', notes: 'n' },
    });
    expect(deleted.json).toMatchObject({
      topic: 'item.deleted',
      data: { id: request.items[1].id, name: 'Any dependents?', type: 'QUESTION' },
    });
    expect(new Set(receiver.received.map((d) => d.json.event_id)).size).toBe(3);

    const log = await eventually(async () => {
      const list = (await api.get(`/webhooks/${webhook.id}/deliveries`)).json();
      return list.length === 3 && list.every((d: { status: string }) => d.status === 'SUCCEEDED') && list;
    });
    expect(log[0]).toMatchObject({
      status: 'SUCCEEDED',
      attempt_count: 1,
      last_status_code: 200,
      attempts: [{ status_code: 200, error: null, latency_ms: expect.any(Number) }],
    });
  });

  it("should send an endpoint one request's deliveries in order, one at a time, and other requests' beside them", async () => {
    const api = client(t.app, tenant.apiKey);
    const slow = await startReceiver();
    try {
      const webhook = (await api.post('/webhooks', { endpoint: slow.url, topics: ['request.updated'] })).json();
      // Two requests whose deliveries go through different queues of the endpoint (it has DELIVERY_QUEUES_PER_ENDPOINT).
      const queue = (requestId: string) => deliveryQueue({ webhookId: webhook.id, requestId });
      const requests: string[] = [(await createRequest(t.app, tenant.apiKey)).id];
      while (requests.length < 2) {
        const { id } = await createRequest(t.app, tenant.apiKey);
        if (queue(id) !== queue(requests[0])) requests.push(id);
      }
      // Each delivery answered 300 ms after it arrived: its request, its notes and when it was in flight.
      const spans: Array<{ request: string; notes: string; from: number; to: number }> = [];
      slow.setResponder((delivery) => {
        const from = Date.now();
        spans.push({ request: delivery.json.data.id, notes: delivery.json.data.notes, from, to: from + 300 });
        return { status: 200, delayMs: 300 };
      });
      for (const notes of ['1', '2', '3'])
        for (const id of requests) expect((await api.patch(`/requests/${id}`, { notes })).statusCode).toBe(200);
      await slow.waitFor(6);

      const overlap = (a: (typeof spans)[number], b: (typeof spans)[number]) => a.from < b.to && b.from < a.to;
      const [first, second] = requests.map((id) => spans.filter((span) => span.request === id));
      for (const own of [first, second]) {
        expect(own.map((span) => span.notes)).toEqual(['1', '2', '3']);
        expect(own.filter((a, i) => own.slice(i + 1).some((b) => overlap(a, b)))).toEqual([]);
      }
      expect(first.some((a) => second.some((b) => overlap(a, b)))).toBe(true);
      await api.delete(`/webhooks/${webhook.id}`);
    } finally {
      await slow.close();
    }
  });

  it('should hold back no other event for one a consumer cannot take, and take that one once it can', async () => {
    const api = client(t.app, tenant.apiKey);
    const request = await createRequest(t.app, tenant.apiKey);
    // Its own receiver: the first test's endpoint gets these events too.
    const own = await startReceiver();
    const webhook = (await api.post('/webhooks', { endpoint: own.url, topics: ['request.updated'] })).json();
    const arrived: string[] = [];
    own.setResponder((delivery) => (arrived.push(delivery.json.data.notes), { status: 200 }));
    // The endpoint's deliveries refuse the event whose notes are 'poison' (a consumer's bug, say) until the trigger goes.
    await t.db.transaction((tx) =>
      tx.execute(`
        create function refuse_poison() returns trigger language plpgsql as $$
        begin
          if (select data->>'notes' from event where id = new.event_id) = 'poison' then raise exception 'poisoned'; end if;
          return new;
        end $$;
        create trigger refuse_poison before insert on webhook_delivery for each row execute function refuse_poison();`),
    );
    try {
      for (const notes of ['1', 'poison', '3']) await api.patch(`/requests/${request.id}`, { notes });
      // The others go, in their order, and every event has its activity entry (another consumer).
      await eventually(async () => arrived.length === 2);
      expect(arrived).toEqual(['1', '3']);
      const entries = () =>
        t.db.rows<{ n: number }>(
          `select count(*)::int as n from activity where request_id = ? and action = 'request.updated'`,
          [request.id],
        );
      await eventually(async () => (await entries())[0].n === 3);
    } finally {
      await t.db.transaction((tx) =>
        tx.execute('drop trigger refuse_poison on webhook_delivery; drop function refuse_poison()'),
      );
    }
    try {
      // Its event's job runs again after graphile-worker's backoff (seconds after its first failures).
      await eventually(async () => arrived.length === 3, 30_000);
      expect(arrived).toEqual(['1', '3', 'poison']);
      await api.delete(`/webhooks/${webhook.id}`);
    } finally {
      await own.close();
    }
  });

  it('should post a delivery whose answer takes seconds once: the liveness check leaves a living worker its job', async () => {
    const api = client(t.app, tenant.apiKey);
    const slow = await startReceiver();
    try {
      const webhook = (await api.post('/webhooks', { endpoint: slow.url, topics: ['request.closed'] })).json();
      // Longer than the second after which the liveness check frees the jobs of workers whose process is gone.
      slow.setResponder(() => ({ status: 200, delayMs: 1800 }));
      const request = await createRequest(t.app, tenant.apiKey);
      await api.post(`/requests/${request.id}/close`);
      await slow.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(slow.incoming()).toBe(1);
      await api.delete(`/webhooks/${webhook.id}`);
    } finally {
      await slow.close();
    }
  });

  it('should sign with both secrets during the grace period after a rotation', async () => {
    const api = client(t.app, tenant.apiKey);
    const webhook = (await api.post('/webhooks', { endpoint: receiver.url, topics: ['request.closed'] })).json();
    const rotated = (await api.post(`/webhooks/${webhook.id}/secret/rotate`)).json();
    const before = receiver.received.length;
    const request = await createRequest(t.app, tenant.apiKey);
    await api.post(`/requests/${request.id}/close`);
    // The first test's endpoint also receives this request's request.created.
    await receiver.waitFor(before + 2);
    const delivery = receiver.received.slice(before).find((d) => d.json.topic === 'request.closed')!;
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(receiver.verify(delivery, rotated.secret)).toEqual(delivery.json);
    expect(receiver.verify(delivery, webhook.secret)).toEqual(delivery.json);
  });
});

describe('webhook retries, on a clock the test controls', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let now: Date;
  const advance = (ms: number) => (now = new Date(now.getTime() + ms));

  beforeAll(async () => {
    // A minute ahead of the wall clock that stamps events, so new deliveries are due at once.
    now = new Date(Date.now() + 60_000);
    t = await createTestApp({}, { clock: { now: () => now } });
    await t.app.ready();
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const deliveries = async (webhookId: string) =>
    (await client(t.app, tenant.apiKey).get(`/webhooks/${webhookId}/deliveries`)).json();

  it('should retry on the backoff schedule, then mark the delivery FAILED; a retry replays it', async () => {
    const api = client(t.app, tenant.apiKey);
    const webhook = (await api.post('/webhooks', { endpoint: receiver.url, topics: ['request.created'] })).json();
    receiver.setResponder(() => ({ status: 503 }));
    const sent = receiver.incoming();
    await createRequest(t.app, tenant.apiKey);

    await t.app.jobs.runDue();
    expect(receiver.incoming()).toBe(sent + 1);
    let [delivery] = await deliveries(webhook.id);
    expect(delivery).toMatchObject({
      status: 'PENDING',
      attempt_count: 1,
      last_status_code: 503,
      last_error: 'HTTP 503: failed on purpose',
    });
    expect(Date.parse(delivery.next_attempt_at) - now.getTime()).toBe(5_000);
    // Not due yet: nothing goes out.
    await t.app.jobs.runDue();
    expect(receiver.incoming()).toBe(sent + 1);

    // One attempt each time the next comes due.
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      advance(delay);
      await t.app.jobs.runDue();
      expect(receiver.incoming()).toBe(sent + i + 2);
    }
    [delivery] = await deliveries(webhook.id);
    expect(delivery).toMatchObject({ status: 'FAILED', attempt_count: MAX_ATTEMPTS, next_attempt_at: null });
    expect(delivery.attempts).toHaveLength(MAX_ATTEMPTS);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 86_400_000).toBeGreaterThan(3);
    expect(total / 86_400_000).toBeLessThan(3.5);

    receiver.setResponder(() => ({ status: 200 }));
    const retried = await api.post(`/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
    expect(retried.json()).toMatchObject({ status: 'PENDING' });
    await t.app.jobs.runDue();
    [delivery] = await deliveries(webhook.id);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempt_count: MAX_ATTEMPTS + 1 });
    expect(receiver.received).toHaveLength(1);
    expect(
      (await api.post(`/webhooks/${webhook.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`)).statusCode,
    ).toBe(404);
  });

  /**
   * A request and a new endpoint for its updates (what earlier endpoints are owed is sent first); the
   * receiver notes each delivery's `notes` in `arrived` and answers `status(notes)`.
   */
  const updatesEndpoint = async (status: (notes: string) => number) => {
    const request = await createRequest(t.app, tenant.apiKey);
    await t.app.jobs.runDue();
    const webhook = (
      await client(t.app, tenant.apiKey).post('/webhooks', { endpoint: receiver.url, topics: ['request.updated'] })
    ).json();
    const arrived: string[] = [];
    receiver.setResponder(
      (delivery) => (arrived.push(delivery.json.data.notes), { status: status(delivery.json.data.notes) }),
    );
    return { request, webhook, arrived };
  };

  it('should send to an endpoint in event order and record each attempt', async () => {
    const api = client(t.app, tenant.apiKey);
    // The 2nd and the 4th fail: the round ends on a failure, after a success.
    const failing = new Set(['2', '4']);
    const { request, webhook, arrived } = await updatesEndpoint((notes) => (failing.has(notes) ? 503 : 200));
    for (const notes of ['1', '2', '3', '4']) await api.patch(`/requests/${request.id}`, { notes });
    const byStatus = async (status: string) =>
      (await deliveries(webhook.id)).filter((d: { status: string }) => d.status === status);

    await t.app.jobs.runDue();
    expect(arrived).toEqual(['1', '2', '3', '4']);
    const pending = await byStatus('PENDING');
    expect(pending).toHaveLength(2);
    for (const d of pending)
      expect(d).toMatchObject({
        attempt_count: 1,
        last_status_code: 503,
        attempts: [{ status_code: 503, error: 'HTTP 503: failed on purpose' }],
      });
    const succeeded = await byStatus('SUCCEEDED');
    expect(succeeded).toHaveLength(2);
    for (const d of succeeded)
      expect(d).toMatchObject({ attempt_count: 1, attempts: [{ status_code: 200, error: null }] });
    expect((await api.get(`/webhooks/${webhook.id}`)).json()).toMatchObject({ failing_since: now.toISOString() });

    // The retries come due together (at the same moment: in either order); the endpoint's last attempt succeeded.
    failing.clear();
    advance(RETRY_DELAYS_MS[0]);
    await t.app.jobs.runDue();
    expect(arrived.slice(4).sort()).toEqual(['2', '4']);
    const retried = (await byStatus('SUCCEEDED')).filter((d: { attempt_count: number }) => d.attempt_count === 2);
    expect(retried).toHaveLength(2);
    for (const d of retried)
      expect(d.attempts.map((a: { status_code: number }) => a.status_code).sort()).toEqual([200, 503]);
    expect((await api.get(`/webhooks/${webhook.id}`)).json()).toMatchObject({ failing_since: null });
    await api.delete(`/webhooks/${webhook.id}`);
  });

  it('should send a backlog in event order, more at once than the queue runs jobs, each attempt recorded', async () => {
    const api = client(t.app, tenant.apiKey);
    const { request, webhook, arrived } = await updatesEndpoint(() => 200);
    // Ten times the jobs the test app runs at once (JOB_CONCURRENCY 4).
    const notes = Array.from({ length: 40 }, (_, i) => String(i));
    for (const n of notes) await api.patch(`/requests/${request.id}`, { notes: n });

    await t.app.jobs.runDue();
    expect(arrived).toEqual(notes);
    const list = (await api.get(`/webhooks/${webhook.id}/deliveries?limit=100`)).json();
    expect(list).toHaveLength(40);
    for (const d of list)
      expect(d).toMatchObject({ status: 'SUCCEEDED', attempt_count: 1, attempts: [{ status_code: 200 }] });
    await api.delete(`/webhooks/${webhook.id}`);
  });

  it('should consume a backlog of events in one pass and send an endpoint its deliveries in one job', async () => {
    const api = client(t.app, tenant.apiKey);
    const { request, webhook, arrived } = await updatesEndpoint(() => 200);
    const notes = Array.from({ length: 12 }, (_, i) => String(i));
    for (const n of notes) await api.patch(`/requests/${request.id}`, { notes: n });

    t.sql.reset();
    await t.app.jobs.runDue();
    expect(arrived).toEqual(notes);
    const count = (pattern: RegExp) => t.sql.statements.filter((sql) => pattern.test(sql)).length;
    // The first event's job took the eleven others along: one read of the events, one look for their jobs, one mark of
    // them in every consumer's ledger, one insert of their deliveries, whose one job posted them all and recorded them at once.
    expect(count(/from event where id = \?\s+union all/)).toBe(1);
    expect(count(/from graphile_worker\.jobs j\s+where j\.key = any/)).toBe(1);
    expect(count(/^\s*insert into event_consumer/)).toBe(1);
    expect(count(/^\s*insert into webhook_delivery/)).toBe(1);
    expect(count(/update webhook_delivery d/)).toBe(1);
    expect(
      await t.db.rows(`select 1 from graphile_worker.jobs where task_identifier in ('event', 'webhook.deliver')`),
    ).toEqual([]);
    const actions = await t.db.rows<{ n: number }>(
      `select count(*)::int as n from activity where request_id = ? and action = 'request.updated'`,
      [request.id],
    );
    expect(actions).toEqual([{ n: 12 }]);
    await api.delete(`/webhooks/${webhook.id}`);
  });

  it('should record an attempt once when its job runs twice, and queue one delivery when its event is consumed twice', async () => {
    const api = client(t.app, tenant.apiKey);
    const { request, webhook } = await updatesEndpoint(() => 200);
    const rows = <T>(sql: string, params: unknown[]) => t.db.rows<T>(sql, params);
    const deliveryOf = async (eventId: string) =>
      (await deliveries(webhook.id)).filter((d: { event_id: string }) => d.event_id === eventId);

    // The same job on another instance (freed by the liveness check while this one still posts, or run
    // again after a crash between the POST and its record): both post, one attempt is recorded.
    const agents = deliveryAgents(true);
    const other = webhookTasks({
      db: t.db,
      settings: t.config.webhooks,
      serverSecret: t.config.secret,
      clock: { now: () => now },
      agents,
      attempts: attemptCounts(),
    })['webhook.deliver'];
    const posts: string[] = [];
    receiver.setResponder((delivery) => (posts.push(delivery.json.event_id), { status: 200, delayMs: 300 }));
    await api.patch(`/requests/${request.id}`, { notes: 'twice' });
    const running = t.app.jobs.runDue();
    await eventually(async () => posts.length === 1);
    const [{ id: deliveryId }] = await rows<{ id: string }>(
      `select id from webhook_delivery where webhook_id = ? and event_id = ?`,
      [webhook.id, posts[0]],
    );
    await Promise.all([running, other({ deliveryId }, undefined as never)]);
    expect(posts).toEqual([posts[0], posts[0]]);
    const [delivery] = await deliveryOf(posts[0]);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempt_count: 1, attempts: [{ status_code: 200 }] });
    // Run once more after its record, it posts nothing.
    await other({ deliveryId }, undefined as never);
    expect(posts).toHaveLength(2);

    // The event's job run again (a crash after its consumers' commits): the ledger skips them. Without the ledger's
    // row, the consumer runs again and its insert finds the delivery there: no second delivery, no second job.
    const eventId = posts[0];
    const again = () => t.db.transaction((tx) => addJob(tx, 'event', { eventId }));
    await again();
    await t.app.jobs.runDue();
    await t.db.transaction((tx) =>
      tx.execute(`delete from event_consumer where event_id = ? and consumer = 'webhooks'`, [eventId]),
    );
    await again();
    await t.app.jobs.runDue();
    expect(
      await rows(`select 1 from event_consumer where event_id = ? and consumer = 'webhooks'`, [eventId]),
    ).toHaveLength(1);
    expect(await deliveryOf(eventId)).toHaveLength(1);
    expect(posts).toHaveLength(2);
    await agents.destroy();
    await api.delete(`/webhooks/${webhook.id}`);
  });

  it('should disable an endpoint that failed for five days straight, with the reason', async () => {
    const api = client(t.app, tenant.apiKey);
    const webhook = (await api.post('/webhooks', { endpoint: receiver.url, topics: ['request.updated'] })).json();
    receiver.setResponder(() => ({ status: 500 }));
    const request = await createRequest(t.app, tenant.apiKey);
    await api.patch(`/requests/${request.id}`, { notes: 'day 0' });
    await t.app.jobs.runDue();
    expect((await api.get(`/webhooks/${webhook.id}`)).json()).toMatchObject({
      enabled: true,
      failing_since: now.toISOString(),
    });

    advance(4 * 86_400_000);
    await api.patch(`/requests/${request.id}`, { notes: 'day 4' });
    await t.app.jobs.runDue();
    expect((await api.get(`/webhooks/${webhook.id}`)).json().enabled).toBe(true);

    advance(86_400_000);
    await t.app.jobs.runDue();
    const disabled = (await api.get(`/webhooks/${webhook.id}`)).json();
    expect(disabled).toMatchObject({ enabled: false, disabled_at: now.toISOString() });
    expect(disabled.disabled_reason).toContain('failed for 120 hours');
    expect((await deliveries(webhook.id)).every((d: { status: string }) => d.status === 'FAILED')).toBe(true);

    // A disabled endpoint gets no new deliveries until it is enabled again.
    await api.patch(`/requests/${request.id}`, { notes: 'while disabled' });
    await t.app.jobs.runDue();
    expect(await deliveries(webhook.id)).toHaveLength(2);
  });

  it('should refuse at delivery time a host that now resolves to a private address', async () => {
    const rebinding = await createTestApp(
      {
        webhooks: {
          allowPrivate: false,
          timeoutMs: 2000,
          secretGraceMs: 1,
          disableAfterMs: 432_000_000,
        },
      },
      {
        // Public when the endpoint is saved, loopback when the delivery connects: DNS rebinding.
        resolveHost: async () => ['93.184.216.34'],
        deliveryLookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options?.all
            ? callback(null, [{ address: '127.0.0.1', family: 4 }])
            : callback(null, '127.0.0.1', 4)) as never,
      },
    );
    try {
      await rebinding.app.ready();
      const owner = await createTenant(rebinding.db);
      const api = client(rebinding.app, owner.apiKey);
      const webhook = (
        await api.post('/webhooks', { endpoint: 'https://rebind.test/hook', topics: ['request.created'] })
      ).json();
      expect(webhook.id).toBeDefined();
      await createRequest(rebinding.app, owner.apiKey);
      await rebinding.app.jobs.runDue();
      const [delivery] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).json();
      expect(delivery).toMatchObject({ status: 'PENDING', last_status_code: null });
      expect(delivery.last_error).toContain('127.0.0.1');
      expect(delivery.last_error).toContain('not allowed');
    } finally {
      await rebinding.close();
    }
  });
});
