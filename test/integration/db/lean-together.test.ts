import { randomUUID } from 'node:crypto';
import { findLean, findLeanTogether, type LeanStatement } from '../../../src/kernel/db/lean';
import { inTransaction } from '../../../src/kernel/db/transaction';
import { RequestItem } from '../../../src/modules/items/item.entities';
import { Recipient } from '../../../src/modules/recipients/recipient.entities';
import { MODULES } from '../../../src/modules';
import { Request } from '../../../src/modules/requests/request.entities';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// Statements sent together go as one pipeline of bound statements (kernel/db/pipeline.ts): the rows
// must be the ones each statement reads alone, whatever the values hold.
describe('lean statements in one round trip', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.orm);
  });
  afterAll(() => t.close());

  it('should read what each statement reads with bind parameters, in one statement of the log', async () => {
    const name = `It's a \\ back?slash $1 ''quoted'' "request"`;
    const { id } = await createRequest(t.app, tenant.apiKey, {
      name,
      recipients: [{ email: 'together@example.com', first_name: "O'Brien" }],
    });
    const statements: LeanStatement[] = [
      {
        entity: Request,
        sql: 'select * from request where name = ? and organization_id = ?',
        params: [name, tenant.organizationId],
      },
      {
        entity: Request,
        sql: 'select * from request where id = any(?::uuid[]) and created_at <= ? and (?::boolean or ?::text is null)',
        params: [[id], new Date(Date.now() + 60_000), false, null],
      },
      {
        entity: RequestItem,
        sql: 'select * from request_item where request_id = any(?::uuid[]) order by position',
        params: [[id]],
      },
      {
        entity: Recipient,
        sql: 'select * from recipient where request_id = ? and first_name = ?',
        params: [id, "O'Brien"],
      },
      {
        entity: Recipient,
        sql: 'select * from recipient where request_id = ? and first_name = ?',
        params: [id, 'nobody'],
      },
    ];
    await inTransaction(t.orm.em.fork(), async (tx) => {
      const separately = [];
      for (const { entity, sql, params } of statements) separately.push(await findLean(tx, entity, sql, params));
      t.sql.reset();
      const together = await findLeanTogether(tx, statements);
      expect(t.sql.statements).toHaveLength(1);
      expect(together).toEqual(separately);
      expect(together.map((rows) => rows.length)).toEqual([1, 1, 2, 1, 0]);
      expect(together[0][0]).toMatchObject({ id, name });
    });
  });

  it('should send loader batches waiting together in one round trip, in a transaction or not', async () => {
    const { id } = await createRequest(t.app, tenant.apiKey, { name: 'Loaded together' });
    const { id: other } = await createRequest(t.app, tenant.apiKey, { name: 'Loaded after' });
    const inside = await inTransaction(t.orm.em.fork(), async (tx) => {
      const loaders = MODULES.createLoaders(tx, tenant.organizationId);
      t.sql.reset();
      const [items, recipients, collaborators] = await Promise.all([
        loaders.itemsByRequest.load(id),
        loaders.recipientsByRequest.load(id),
        loaders.collaboratorsByRequest.load(id),
      ]);
      // The recipients' contacts came along (recipient.loaders.ts), so a render asks for them in vain.
      const contacts = await Promise.all(recipients.map((recipient) => loaders.contactById.load(recipient.contact.id)));
      expect(contacts.map((contact) => contact?.id)).toEqual(recipients.map((recipient) => recipient.contact.id));
      expect(t.sql.statements).toHaveLength(1);
      expect(items.map((item) => item.request.id)).toEqual(items.map(() => id));
      expect(items.length).toBeGreaterThan(0);
      expect(recipients.length).toBeGreaterThan(0);
      expect(collaborators).toEqual([]);
      // One batch alone is sent as it always was: bind parameters, its own statement.
      expect(await loaders.itemsByRequest.load(other)).toHaveLength(items.length);
      expect(t.sql.statements).toHaveLength(2);
      return { items, recipients };
    });
    // Outside a transaction too the batches of one tick go together, the contacts only when asked.
    const loaders = MODULES.createLoaders(t.orm.em.fork(), tenant.organizationId);
    t.sql.reset();
    const [outsideItems, outsideRecipients] = await Promise.all([
      loaders.itemsByRequest.load(id),
      loaders.recipientsByRequest.load(id),
    ]);
    expect(t.sql.statements.map((statement) => statement.split(';\n').map((one) => one.split(' where ')[0]))).toEqual([
      ['select * from request_item', 'select * from recipient'],
    ]);
    expect(outsideItems).toEqual(inside.items);
    expect(outsideRecipients).toEqual(inside.recipients);
  });

  it("should take rows as they arrive, and hand a failed statement's error and connection back", async () => {
    const { id } = await createRequest(t.app, tenant.apiKey, { name: 'Streamed rows' });
    const em = t.orm.em.fork();
    const items = await findLean(
      em,
      RequestItem,
      'select id, name, position from request_item where request_id = ? order by position',
      [id],
    );
    expect(items.map((item) => item.name)).toEqual(['W-2', 'Any dependents?']);
    expect(await findLean(em, RequestItem, 'select id from request_item where request_id = ?', [randomUUID()])).toEqual(
      [],
    );
    // More failures than the pool has connections: each one's connection goes back.
    const max = t.orm.config.get('pool')?.max ?? 10;
    for (let i = 0; i <= max; i++) {
      await expect(
        findLean(em, RequestItem, 'select id from request_item where request_id = ?', ['not a uuid']),
      ).rejects.toThrow(/invalid input syntax for type uuid/);
    }
    const all = await Promise.all(
      Array.from({ length: max }, () =>
        findLean(em, RequestItem, 'select id from request_item where request_id = ?', [id]),
      ),
    );
    expect(all.map((rows) => rows.length)).toEqual(Array.from({ length: max }, () => 2));
    // Statements sent together: one failing fails them all, its error given, and the connection goes back.
    const together = (requestId: string): LeanStatement[] => [
      { entity: RequestItem, sql: 'select id from request_item where request_id = ?', params: [id] },
      { entity: RequestItem, sql: 'select id from request_item where request_id = ?', params: [requestId] },
      { entity: RequestItem, sql: 'select id from request_item where request_id = ?', params: [id] },
    ];
    for (let i = 0; i <= max; i++)
      await expect(findLeanTogether(em, together('not a uuid'))).rejects.toThrow(/invalid input syntax for type uuid/);
    expect((await findLeanTogether(em, together(id))).map((rows) => rows.length)).toEqual([2, 2, 2]);
    // A value pg cannot send fails them before anything runs.
    const circular: unknown[] = [];
    circular.push(circular);
    await expect(
      findLeanTogether(em, [
        {
          entity: RequestItem,
          sql: 'select id from request_item where request_id = any(?::uuid[])',
          params: [circular],
        },
      ]),
    ).rejects.toThrow();
    expect((await findLeanTogether(em, together(id))).map((rows) => rows.length)).toEqual([2, 2, 2]);
  });
});
