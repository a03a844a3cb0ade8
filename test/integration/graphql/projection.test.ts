import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { RecordLoader } from '../../../src/kernel/db/loaders';
import { RequestItem } from '../../../src/modules/items/item.entities';
import { Request } from '../../../src/modules/requests/request.entities';
import { User } from '../../../src/modules/identity/identity.entities';

// Lists read only the columns their document selects (kernel/graphql/projection.ts): what each
// statement reads, and that a record read with fewer properties never answers a field that needs more.

describe('GraphQL: reading the columns a document selects', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let guarded: { id: string };

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
    await createRequest(t.app, tenant.apiKey, { name: 'Open' });
    // A recipient without an auth method of its own is asked for a code when the request wants MFA.
    guarded = await createRequest(t.app, tenant.apiKey, {
      name: 'Guarded',
      mfa_enabled: true,
      recipients: [{ email: 'ana@example.com' }],
    });
  });
  afterAll(() => t.close());

  const run = async (query: string) => {
    t.sql.reset();
    const result = await api.graphql(query, {});
    expect(result.errors).toBeUndefined();
    return { data: result.data, statements: t.sql.statements.map((sql) => sql.replace(/\s+/g, ' ')) };
  };
  const statementOn = (statements: string[], table: string) =>
    statements.filter((sql) => new RegExp(`from (\\(select r\\.\\* from )?${table}\\b`).test(sql));

  it('should read only the selected columns of the page, its items, recipients and owners', async () => {
    const { data, statements } = await run(
      `{ requests(first: 5) { nodes { name owner { email } items { name kind } recipients { email } } } }`,
    );
    expect(data.requests.nodes.map((r: { name: string }) => r.name)).toEqual(['Guarded', 'Open']);
    expect(data.requests.nodes[0].items).toEqual([
      { name: 'W-2', kind: 'UPLOAD' },
      { name: 'Any dependents?', kind: 'QUESTION' },
    ]);
    expect(data.requests.nodes[0].recipients).toEqual([{ email: 'ana@example.com' }]);
    expect(data.requests.nodes[0].owner.email).toEqual(expect.stringContaining('@'));
    const [page] = statementOn(statements, 'request');
    // The ordering column comes too (an edge's cursor is made of it), and the MFA setting with the
    // recipients (their `auth` reads it).
    expect(page).toMatch(/^select page\.id, page\.owner_id, page\.name, page\.mfa_enabled, page\.created_at from/);
    expect(statementOn(statements, 'request_item')).toEqual([
      expect.stringMatching(/^select id, request_id, type, name from request_item /),
    ]);
    expect(statementOn(statements, 'recipient')).toEqual([
      expect.stringMatching(/^select id, request_id, email from recipient /),
    ]);
    // Owners are whole records from the instance's cache of users (identity.loaders.ts): read once.
    expect(statementOn(statements, 'app_user')).toEqual([
      `select ${t.db.columns(User)} from app_user where id = any(?::uuid[])`,
    ]);
    const again = await run(`{ requests(first: 5) { nodes { name owner { email } } } }`);
    expect(again.data).toEqual({
      requests: { nodes: data.requests.nodes.map(({ name, owner }: any) => ({ name, owner })) },
    });
    expect(statementOn(again.statements, 'app_user')).toEqual([]);
  });

  it("should read sibling fields' properties in one key per record when both ask before the read is sent", async () => {
    // percentComplete reads the items' status and required flags, items their names (and types, for
    // their GraphQL type): one read of both.
    const { data, statements } = await run(`{ requests(first: 5) { nodes { name percentComplete items { name } } } }`);
    expect(data.requests.nodes[0]).toEqual({
      name: 'Guarded',
      percentComplete: 0,
      items: [{ name: 'W-2' }, { name: 'Any dependents?' }],
    });
    const reads = statementOn(statements, 'request_item');
    expect(reads).toEqual([
      expect.stringMatching(/^select id, request_id, type, name, required, status, is_na from request_item /),
    ]);
  });

  it('should give a loader each id once per read, with the union of what its callers read, and read again for more once sent', async () => {
    const reads: { columns: string; ids: string[] }[] = [];
    const loader = new RecordLoader<string[]>(t.db, RequestItem, ['request'], async (columns, ids) => {
      reads.push({ columns, ids });
      return ids.map(() => []);
    });
    const id = guarded.id;
    await Promise.all([
      loader.load({ id, properties: new Set(['name']) }),
      loader.load({ id, properties: new Set(['status']) }),
    ]);
    expect(reads).toEqual([{ columns: 'id, request_id, name, status', ids: [id] }]);
    // Covered by what was read: no read.
    await loader.load({ id, properties: new Set(['status']) });
    expect(reads).toHaveLength(1);
    // More than was read, after it was sent: a read of its own; the whole record for a plain id.
    await loader.load({ id, properties: new Set(['required']) });
    await loader.load(id);
    expect(reads.slice(1)).toEqual([
      { columns: 'id, request_id, required', ids: [id] },
      { columns: t.db.columns(RequestItem), ids: [id] },
    ]);
  });

  it('should make records of the columns read, and of those only', async () => {
    const [item] = await t.db.records(
      RequestItem,
      'select id, request_id, name, created_at from request_item where request_id = ? order by position limit 1',
      [guarded.id],
    );
    // A request held while its other statements run holds its records: unread properties take no room.
    expect(Object.keys(item)).toEqual(['id', 'request', 'name', 'createdAt']);
    expect(item).toMatchObject({ request: { id: guarded.id }, name: 'W-2', createdAt: expect.any(Date) });
    const [whole] = await t.db.records(RequestItem, 'select * from request_item where id = ?', [item.id]);
    expect(Object.keys(whole).length).toBeGreaterThan(15);
    expect(whole).toMatchObject({ id: item.id, deletedAt: null });
  });

  it('should read again, with what it lacks, a record an earlier read left short', async () => {
    // The page reads no `mfa_enabled`; the items' request does, so it is read again by id.
    const { data, statements } = await run(
      `{ requests(first: 5) { nodes { name items { request { name mfaEnabled } } } } }`,
    );
    const guardedNode = data.requests.nodes.find((r: { name: string }) => r.name === 'Guarded');
    expect(guardedNode.items[0].request).toEqual({ name: 'Guarded', mfaEnabled: true });
    expect(data.requests.nodes.find((r: { name: string }) => r.name === 'Open').items[0].request.mfaEnabled).toBe(
      false,
    );
    expect(statementOn(statements, 'request')).toEqual([
      expect.stringMatching(/^select page\.id, page\.name, page\.created_at from/),
      expect.stringMatching(/^select id, name, mfa_enabled from request where id = any/),
    ]);
  });

  it("should answer a recipient's auth from the page, which reads the request's MFA setting with its recipients", async () => {
    const { data, statements } = await run(`{ requests(first: 5) { nodes { id recipients { auth } } } }`);
    expect(data.requests.nodes.find((r: { id: string }) => r.id === guarded.id).recipients).toEqual([
      { auth: 'EMAIL' },
    ]);
    expect(data.requests.nodes.find((r: { id: string }) => r.id !== guarded.id).recipients).toEqual([{ auth: 'NONE' }]);
    expect(statementOn(statements, 'request')).toEqual([
      expect.stringMatching(/^select page\.id, page\.mfa_enabled, page\.created_at from/),
    ]);
  });

  it('should follow fragments, inline fragments on the item types and fragments on their interface', async () => {
    const { data, statements } = await run(`
      { requests(first: 5) { nodes { items { ...Item } } } }
      fragment Item on RequestItem { name ... on QuestionItem { questionType } ... on UploadItem { verified } }`);
    expect(data.requests.nodes[0].items).toEqual([
      { name: 'W-2', verified: false },
      { name: 'Any dependents?', questionType: 'TEXT' },
    ]);
    expect(statementOn(statements, 'request_item')).toEqual([
      expect.stringMatching(/^select id, request_id, type, name, status, question_type from request_item /),
    ]);
  });

  it('should read whole rows for a field whose resolver declares nothing of what it reads', async () => {
    const { statements } = await run(`{ requests(first: 5) { nodes { id activity(first: 1) { nodes { id } } } } }`);
    // Every column, named: the page's statement is prepared (a `*` would fail once a column is added).
    expect(statementOn(statements, 'request')[0]).toMatch(
      new RegExp(`^select ${t.db.columns(Request, null, 'page')} from`),
    );
  });
});
