import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { startReceiver } from '../../support/receiver';
import { snapshotAll } from '../../support/snapshot';
import { subscribe, untilSubscribed, wsClient } from '../../support/ws';

// "No event without its change": the event row, the job of its consumers (which queue its deliveries) and
// its NOTIFY share the change's transaction. A constraint trigger that fails at COMMIT, after the event was written, makes that
// transaction fail as late as it can.
const FAIL_AT_COMMIT = `
  create function guard_fail_at_commit() returns trigger language plpgsql as $$
  begin raise exception 'rolled back on purpose'; end $$;
  create constraint trigger guard_fail_at_commit after insert on event deferrable initially deferred
    for each row execute function guard_fail_at_commit()`;
const REMOVE = `drop trigger if exists guard_fail_at_commit on event; drop function if exists guard_fail_at_commit()`;

describe('a change rolled back at commit', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ws: ReturnType<typeof wsClient>;
  let events: ReturnType<typeof subscribe<{ events: { eventId: string; topic: string } }>>;
  let request: { id: string; name: string; items: Array<{ id: string; name: string }> };

  const execute = (sql: string) => t.orm.em.fork().getConnection().execute(sql);
  /** The job queue's jobs (its own schema: snapshotAll reads the service's tables). */
  const jobs = () => execute(`select id, task_identifier, key from graphile_worker.jobs order by id`);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const api = client(t.app, tenant.apiKey);
    await api.post('/webhooks', {
      endpoint: receiver.url,
      topics: ['request.created', 'request.updated', 'item.updated'],
    });
    ws = wsClient(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`, {
      authorization: `Bearer ${tenant.apiKey}`,
    });
    events = subscribe(ws.client, 'subscription { events { eventId topic } }');
    await untilSubscribed(() => t.app.subscriptions.subscriberCount, 1);
    // The pipeline works before the failures: the creation reaches the subscriber and the receiver.
    request = await createRequest(t.app, tenant.apiKey, { name: 'Before' });
    expect((await events.next()).data?.events.topic).toBe('REQUEST_CREATED');
    await t.app.jobs.runDue();
    expect(receiver.received.map((d) => d.json.topic)).toEqual(['request.created']);
  });
  afterAll(async () => {
    await execute(REMOVE);
    await ws.client.dispose();
    await t.close();
    await receiver.close();
  });

  it.each([
    // A creation commits in a lean transaction (kernel/db/transaction.ts), its invitations queued by the event's
    // statement.
    [
      'a request creation',
      (api: ReturnType<typeof client>) =>
        api.post('/requests', {
          name: 'Rolled back',
          recipients: [{ email: 'rolled-back@example.com' }],
          items: [{ name: 'Passport', type: 'UPLOAD' }],
        }),
    ],
    [
      'a request update',
      (api: ReturnType<typeof client>) => api.patch(`/requests/${request.id}`, { name: 'Rolled back' }),
    ],
    [
      'an item update',
      (api: ReturnType<typeof client>) =>
        api.patch(`/requests/${request.id}/items/${request.items[0].id}`, { name: 'Rolled back' }),
    ],
  ])('should leave no trace of %s: no change, no event, no job, no delivery, nothing sent', async (name, change) => {
    const api = client(t.app, tenant.apiKey);
    const before = await snapshotAll(t);
    const jobsBefore = await jobs();
    const deliveredBefore = receiver.incoming();
    await execute(FAIL_AT_COMMIT);
    let response;
    try {
      response = await change(api);
    } finally {
      await execute(REMOVE);
    }
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ detail: 'Internal server error', request_id: expect.any(String) });

    // Every row of every table as it was: the request or item, `event`, `webhook_delivery`; and no job.
    expect(await snapshotAll(t)).toEqual(before);
    expect(await jobs()).toEqual(jobsBefore);
    const [counts] = await execute(
      `select (select count(*) from event)::int as events, (select count(*) from webhook_delivery)::int as deliveries`,
    );
    expect(counts).toEqual({ events: 1, deliveries: 1 });
    expect((await api.get(`/requests/${request.id}`)).json()).toMatchObject({
      name: 'Before',
      items: [{ name: request.items[0].name }, {}],
    });

    // Nothing to send, and nothing sent.
    await t.app.jobs.runDue();
    expect(receiver.incoming()).toBe(deliveredBefore);
    // The next event a subscriber sees is the next committed change, not the rolled-back one.
    const committed = await api.patch(`/requests/${request.id}`, { notes: `after ${name}` });
    expect(committed.statusCode).toBe(200);
    expect((await events.next()).data?.events.topic).toBe('REQUEST_UPDATED');
    expect(events.pending()).toBe(0);
    await t.app.jobs.runDue();
    expect(receiver.received.at(-1)?.json).toMatchObject({
      topic: 'request.updated',
      data: { notes: `after ${name}` },
    });
    // Undo the committed change's rows, so the next case starts from the same counts.
    await execute(`delete from event where topic <> 'request.created'`);
  });
});
