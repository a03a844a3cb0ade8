import { existsSync } from 'node:fs';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { storedObjects, submit } from '../../support/documents';

const DAY = 86_400_000;

describe('timed jobs, on a clock the test moves', () => {
  let t: TestApp;
  let tenant: Tenant;
  let offsetMs = 0;
  const at = (days: number, minutes = 1) => {
    offsetMs = days * DAY + minutes * 60_000;
  };
  const run = () => t.app.jobs.runDue();
  const messages = async (requestId: string, kind: string) =>
    await t.orm.em
      .fork()
      .execute<{ address: string; params: Record<string, unknown> }[]>(
        `select address, params from notification where request_id = ? and kind = ? order by created_at`,
        [requestId, kind],
      );
  const stateOf = async (id: string) => (await client(t.app, tenant.apiKey).get(`/requests/${id}`)).json().status;

  beforeAll(async () => {
    t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());
  beforeEach(() => {
    offsetMs = 0;
  });

  it("should plan new requests' dates together, each request's at its own times", async () => {
    const soon = (days: number) => new Date(Date.now() + days * DAY);
    const requests = [
      await createRequest(t.app, tenant.apiKey, { reminders: 2 }),
      await createRequest(t.app, tenant.apiKey, { reminders: 0, expiration_date: soon(9).toISOString() }),
      await createRequest(t.app, tenant.apiKey, { reminders: 3, auto_close_at: soon(5).toISOString() }),
    ];
    for (let n = 0; n < 5; n++) await createRequest(t.app, tenant.apiKey, { reminders: 0 });
    t.sql.reset();
    await run();
    // Eight creations in four event queues: those of one queue are consumed, and planned, together.
    const plans = t.sql.statements.filter((statement) => /^\s*insert into job\b/.test(statement));
    expect(plans.length).toBeLessThanOrEqual(4);
    const planned = await t.db.rows<{ request_id: string; kind: string; due_at: Date }>(
      `select request_id, kind, due_at from job where request_id = any(?::uuid[]) and status = 'PENDING'
        order by kind, due_at`,
      [requests.map((request) => request.id)],
    );
    const days = (request: { created_at: string }, due: Date) =>
      Math.round((due.getTime() - new Date(request.created_at).getTime()) / DAY);
    expect(
      planned.map((job) => {
        const at = requests.findIndex((request) => request.id === job.request_id);
        return [at, job.kind, days(requests[at], job.due_at)];
      }),
    ).toEqual([
      [2, 'AUTO_CLOSE', 5],
      [1, 'EXPIRATION_WARNING', 9],
      [1, 'EXPIRE', 9],
      [0, 'REMINDER', 2],
      [2, 'REMINDER', 3],
    ]);
  });

  it('should remind every `reminders` days those who have not submitted, and after a long pause once, not in a burst', async () => {
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 2 });
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(0);
    at(1);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(0);
    at(2);
    await run();
    expect(await messages(request.id, 'REMINDER')).toEqual([expect.objectContaining({ address: 'ana@example.com' })]);
    at(3);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(1);
    at(4);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(2);
    // Down for a fortnight: one reminder when it comes back, the next two days after that.
    at(18, 30);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(3);
    at(19, 30);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(3);
    at(20, 2);
    await run();
    expect(await messages(request.id, 'REMINDER')).toHaveLength(4);

    const activity = (await client(t.app, tenant.apiKey).get(`/requests/${request.id}/activity?limit=100`)).json();
    const sent = activity.filter((entry: { action: string }) => entry.action === 'request.reminder_sent');
    expect(sent).toHaveLength(4);
    const [recipient] = await t.orm.em.fork().execute('select id from recipient where request_id = ?', [request.id]);
    expect(sent[0]).toMatchObject({
      actor: { type: 'SYSTEM', id: null },
      details: { kind: 'PERIODIC', recipient_ids: [recipient.id] },
    });
  });

  it('should warn before the expiration, then expire the request and delete its documents and their files', async () => {
    const expiration = new Date(Date.now() + 10 * DAY).toISOString();
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 0, expiration_date: expiration });
    await submit(t, tenant, request.id, request.items[0].id, 'W-2 bytes', 'w2.pdf');
    expect(storedObjects(t)).toHaveLength(1);
    at(6);
    await run();
    expect(await messages(request.id, 'EXPIRATION_WARNING')).toHaveLength(0);
    at(7);
    await run();
    expect(await stateOf(request.id)).toBe('EXPIRATION_EMAIL_SENT');
    expect(await messages(request.id, 'EXPIRATION_WARNING')).toEqual([
      expect.objectContaining({
        address: 'ana@example.com',
        params: expect.objectContaining({ expiresAt: expect.any(String) }),
      }),
    ]);
    at(10);
    await run();
    expect(await stateOf(request.id)).toBe('EXPIRED');
    expect((await client(t.app, tenant.apiKey).get(`/requests/${request.id}/documents`)).json()).toEqual([]);
    expect(storedObjects(t)).toEqual([]);
    const actions = (await client(t.app, tenant.apiKey).get(`/requests/${request.id}/activity?limit=100`))
      .json()
      .map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['request.expired', 'request.expiration_warning']));
  });

  it('should close a request at auto_close_at, and follow a changed date', async () => {
    const request = await createRequest(t.app, tenant.apiKey, {
      reminders: 0,
      auto_close_at: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    const later = new Date(Date.now() + 5 * DAY).toISOString();
    expect(
      (await client(t.app, tenant.apiKey).patch(`/requests/${request.id}`, { auto_close_at: later })).statusCode,
    ).toBe(200);
    at(3);
    await run();
    expect(await stateOf(request.id)).not.toBe('CLOSED');
    at(5);
    await run();
    expect(await stateOf(request.id)).toBe('CLOSED');
  });

  it('should neither warn, expire nor close before the dates the request holds when its jobs were planned earlier', async () => {
    const soon = new Date(Date.now() + 10 * DAY).toISOString();
    const request = await createRequest(t.app, tenant.apiKey, {
      reminders: 0,
      expiration_date: soon,
      auto_close_at: soon,
    });
    await run();
    const state = await stateOf(request.id);
    // Later dates whose event is not consumed yet: the jobs are still planned at the first ones.
    await t.db.transaction((tx) =>
      tx.execute('update request set expiration_date = ?, auto_close_at = ? where id = ?', [
        new Date(Date.now() + 30 * DAY),
        new Date(Date.now() + 30 * DAY),
        request.id,
      ]),
    );
    at(11);
    await run();
    expect(await stateOf(request.id)).toBe(state);
    expect(await messages(request.id, 'EXPIRATION_WARNING')).toEqual([]);
  });

  it('should cancel what is pending when the request is closed or deleted', async () => {
    const closed = await createRequest(t.app, tenant.apiKey, { reminders: 1 });
    const deleted = await createRequest(t.app, tenant.apiKey, { reminders: 1 });
    expect((await client(t.app, tenant.apiKey).post(`/requests/${closed.id}/close`, {})).statusCode).toBe(200);
    expect((await client(t.app, tenant.apiKey).delete(`/requests/${deleted.id}`)).statusCode).toBe(204);
    // The events' consumer plans and cancels, after their commits.
    await run();
    const jobs = await t.orm.em
      .fork()
      .execute<{ status: string }[]>(`select status from job where request_id in (?, ?)`, [closed.id, deleted.id]);
    expect(jobs.map((j) => j.status)).toEqual(['CANCELLED', 'CANCELLED']);
    at(3);
    await run();
    expect([...(await messages(closed.id, 'REMINDER')), ...(await messages(deleted.id, 'REMINDER'))]).toEqual([]);
  });

  it("should delete a closed request's documents and their files retention_days after it closed, one closed before the days were set too", async () => {
    const api = client(t.app, tenant.apiKey);
    const withDocument = async (name: string) => {
      const request = await createRequest(t.app, tenant.apiKey, { name, reminders: 0 });
      const before = new Set(storedObjects(t));
      const document = await submit(t, tenant, request.id, request.items[0].id, `${name} bytes`, `${name}.pdf`);
      const objects = storedObjects(t).filter((path) => !before.has(path));
      expect(objects).toHaveLength(1);
      return { id: request.id, documentId: document.id, object: objects[0] };
    };
    const close = async (id: string) => expect((await api.post(`/requests/${id}/close`, {})).statusCode).toBe(200);
    const closedEarly = await withDocument('closed-early');
    await close(closedEarly.id);
    expect(
      (await api.patch(`/organizations/${tenant.organizationId}/settings`, { retention_days: 30 })).statusCode,
    ).toBe(200);
    const closedLate = await withDocument('closed-late');
    await close(closedLate.id);
    const open = await withDocument('still-open');
    const documents = async (id: string) => (await api.get(`/requests/${id}/documents`)).json();

    at(29);
    await run();
    for (const request of [closedEarly, closedLate, open]) expect(existsSync(request.object)).toBe(true);
    at(30);
    await run();
    for (const request of [closedEarly, closedLate]) {
      expect(await documents(request.id)).toEqual([]);
      expect(existsSync(request.object)).toBe(false);
      const activity = (await api.get(`/requests/${request.id}/activity?limit=100`)).json();
      expect(activity.filter((entry: { action: string }) => entry.action === 'request.retention_deleted')).toEqual([
        expect.objectContaining({
          actor: expect.objectContaining({ type: 'SYSTEM', id: null }),
          details: { document_ids: [request.documentId], retention_days: 30 },
        }),
      ]);
    }
    expect(await documents(open.id)).toHaveLength(1);
    expect(existsSync(open.object)).toBe(true);
    expect(await stateOf(closedLate.id)).toBe('CLOSED');
  });
});
