import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// The create's statements, and the lists' and loaders' reads, are prepared (kernel/db/db.ts,
// StatementOptions): each connection keeps them for its life, across migrations that other instances
// run meanwhile. A prepared statement whose answer changes shape fails ("cached plan must not change
// result type"), so they name their columns: a column added to the tables they write or answer
// changes nothing for them.
const TABLES = ['request', 'recipient', 'request_item', 'contact', 'event', 'notification', 'collaborator', 'app_user'];
// A page and its loaders' reads: every column of the records (a plain `owner` id asks for the whole record).
const LIST = `{ requests(first: 50) { nodes { id name owner { id email firstName } items { id name status }
  recipients { id email } collaborators { id } } } }`;

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
    // And every read of the list's, on every connection.
    const api = client(t.app, tenant.apiKey);
    const reads = () =>
      Promise.all(
        Array.from({ length: t.config.dbPoolMax * 2 }, async () => ({
          list: await api.graphql(LIST),
          rest: (await api.get(`/requests/${before[0].id}`)).json(),
          page: (await api.get('/requests?limit=50')).json(),
        })),
      );
    // The owner's first GET notes the request as read: its answer is settled after it.
    await api.get(`/requests/${before[0].id}`);
    const readBefore = await reads();
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
    // The requests made before answer as they did, on every connection: the list's own page shows the new ones too.
    const readAfter = await reads();
    for (const read of readAfter) {
      expect(read.list.errors).toBeUndefined();
      expect(read.rest).toEqual(readBefore[0].rest);
      expect(read.list.data.requests.nodes.slice(after.length)).toEqual(readBefore[0].list.data.requests.nodes);
      expect(read.page.slice(after.length)).toEqual(readBefore[0].page.slice(0, 50 - after.length));
    }
    const [counts] = await execute(
      `select count(*)::int as requests, (select count(*)::int from notification where status = 'KEPT') as kept from request`,
    );
    expect(counts).toEqual({ requests: before.length + after.length, kept: before.length + after.length });
  });
});
