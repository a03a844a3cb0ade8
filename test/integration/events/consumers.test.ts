import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// A change writes its event and nothing else of other modules: the event's statement holds the event,
// its notification and the job that runs the consumers. Once it committed, each consumer does its part:
// the activity entry, the invitations, the timed jobs planned or cancelled, the retention.
describe("an event's consumers", () => {
  let t: TestApp;
  let tenant: Tenant;
  const eventStatement = () => {
    const statements = t.sql.statements.filter((sql) => sql.trim().startsWith('with inserted as'));
    expect(statements).toHaveLength(1);
    return statements[0];
  };
  const rows = <T extends object>(sql: string, params: unknown[]) => t.orm.em.fork().execute<T[]>(sql, params);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  it("should write a create's event alone, and leave its activity, invitation and reminders to its consumers", async () => {
    t.sql.reset();
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 2 });
    const sql = eventStatement();
    expect(sql).toContain("graphile_worker.add_job('event'");
    for (const table of ['activity', 'notification', 'webhook_delivery', 'job'])
      expect([table, t.sql.statements.some((s) => new RegExp(`insert into "?${table}"? `).test(s))]).toEqual([
        table,
        false,
      ]);
    expect(await rows(`select count(*)::int as n from activity where request_id = ?`, [request.id])).toEqual([
      { n: 0 },
    ]);

    await t.app.jobs.runDue();
    expect(await rows(`select action from activity where request_id = ?`, [request.id])).toEqual([
      { action: 'request.created' },
    ]);
    // Sent by its own job (kept: no SMTP_URL).
    expect(await rows(`select kind, status from notification where request_id = ?`, [request.id])).toEqual([
      { kind: 'INVITATION', status: 'KEPT' },
    ]);
    expect(await rows(`select kind, status from job where request_id = ?`, [request.id])).toEqual([
      { kind: 'REMINDER', status: 'PENDING' },
    ]);
    // Each consumer acted once, and says so in the ledger.
    expect(
      await rows(
        `select c.consumer from event_consumer c join event e on e.id = c.event_id where e.request_id = ? order by 1`,
        [request.id],
      ),
    ).toEqual(
      expect.arrayContaining([{ consumer: 'activity' }, { consumer: 'notifications' }, { consumer: 'schedule' }]),
    );
  });

  it("should cancel a closed request's reminders and record the close after the create, once its consumers ran", async () => {
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 2 });
    t.sql.reset();
    expect((await client(t.app, tenant.apiKey).post(`/requests/${request.id}/close`, {})).statusCode).toBe(200);
    expect(eventStatement()).not.toMatch(/update "?job"? /);

    await t.app.jobs.runDue();
    expect(await rows(`select kind, status from job where request_id = ? order by kind`, [request.id])).toEqual([
      { kind: 'REMINDER', status: 'CANCELLED' },
    ]);
    expect(await rows(`select action from activity where request_id = ? order by seq`, [request.id])).toEqual([
      { action: 'request.created' },
      { action: 'request.closed' },
    ]);
  });
});
