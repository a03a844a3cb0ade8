import { createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// The create's statements are prepared (kernel/db/lean.ts, StatementOptions): each connection keeps
// them for its life, across migrations that other instances run meanwhile. A prepared statement
// whose answer changes shape fails ("cached plan must not change result type"), so they name their
// columns: a column added to the tables they write or answer changes nothing for them.
const TABLES = ['request', 'recipient', 'request_item', 'contact', 'event', 'notification', 'collaborator'];

describe('prepared statements across a migration', () => {
  let t: TestApp;
  let tenant: Tenant;
  const execute = (sql: string) => t.orm.em.fork().getConnection().execute(sql);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await execute(TABLES.map((table) => `alter table ${table} drop column if exists added_later`).join('; '));
    await t.close();
  });

  it('should keep creating requests, and answer as before, once a column was added to the tables they write', async () => {
    // Every connection of the pool prepares the statements before the migration.
    const before = await Promise.all(
      Array.from({ length: t.config.dbPoolMax * 2 }, (_, i) =>
        createRequest(t.app, tenant.apiKey, { name: `Before ${i}` }),
      ),
    );
    // And every statement of their jobs (the consumers' inserts, the invitations' sends).
    await t.app.jobs.runDue();
    await execute(TABLES.map((table) => `alter table ${table} add column added_later int default 7`).join('; '));

    // Settled one and all before any assertion, so that none is still writing when the columns go.
    const settled = await Promise.allSettled(
      Array.from({ length: t.config.dbPoolMax * 2 }, (_, i) =>
        createRequest(t.app, tenant.apiKey, { name: `After ${i}` }),
      ),
    );
    expect(settled.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const after = settled.map((outcome) => (outcome as PromiseFulfilledResult<Record<string, unknown>>).value);
    await t.app.jobs.runDue();
    const shape = (body: Record<string, unknown>) => Object.keys(body).sort();
    for (const body of after) expect(shape(body)).toEqual(shape(before[0]));
    const [counts] = await execute(
      `select count(*)::int as requests, (select count(*)::int from notification where status = 'KEPT') as kept from request`,
    );
    expect(counts).toEqual({ requests: before.length + after.length, kept: before.length + after.length });
  });
});
