import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// An event's statement carries only the outbox hooks that can write something for it (EmitHook.applies):
// a data-modifying CTE runs, and locks and opens its tables, even when it writes nothing. What each
// event queues stays the same: the activity entry, the invitations, the jobs planned and cancelled.
describe("the event's statement and its hooks", () => {
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

  it("should leave out of a create's event the hooks that end, escalate, retain or copy, and queue what it did", async () => {
    t.sql.reset();
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 2 });
    const sql = eventStatement();
    expect(sql).toContain('insert into activity');
    expect(sql).toContain('insert into notification');
    expect(sql).toContain('insert into webhook_delivery');
    expect(sql).toContain("select 'REMINDER'");
    expect(sql).not.toContain("set status = 'CANCELLED', updated_at");
    expect(sql).not.toContain('from escalation');
    expect(sql).not.toContain("'RETENTION'");
    expect(sql).not.toContain('cloud-copy');

    expect(await rows(`select action from activity where request_id = ?`, [request.id])).toEqual([
      { action: 'request.created' },
    ]);
    expect(await rows(`select kind, status from notification where request_id = ?`, [request.id])).toEqual([
      { kind: 'INVITATION', status: 'PENDING' },
    ]);
    expect(await rows(`select kind, status from job where request_id = ?`, [request.id])).toEqual([
      { kind: 'REMINDER', status: 'PENDING' },
    ]);
  });

  it("should carry into a close's event the hooks that cancel its jobs and plan its retention, and run them", async () => {
    const request = await createRequest(t.app, tenant.apiKey, { reminders: 2 });
    t.sql.reset();
    expect((await client(t.app, tenant.apiKey).post(`/requests/${request.id}/close`, {})).statusCode).toBe(200);
    const sql = eventStatement();
    expect(sql).toContain("set status = 'CANCELLED', updated_at");
    expect(sql).toContain("'RETENTION'");
    expect(sql).not.toContain('insert into notification');
    expect(sql).not.toContain("select 'REMINDER'");

    expect(await rows(`select kind, status from job where request_id = ?`, [request.id])).toEqual([
      { kind: 'REMINDER', status: 'CANCELLED' },
    ]);
    expect(await rows(`select action from activity where request_id = ? order by seq`, [request.id])).toEqual([
      { action: 'request.created' },
      { action: 'request.closed' },
    ]);
  });
});
