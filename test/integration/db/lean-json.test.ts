import type { EntityMetadata } from '@mikro-orm/postgresql';
import { findLean, findLeanJson, LEAN_ENTITY, queryRows, recordsJson } from '../../../src/kernel/db/lean';
import { inTransaction } from '../../../src/kernel/db/transaction';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';

// Loaders and pages read records as one JSON array built by PostgreSQL (`recordsJson`); other reads
// map rows (`findLean`). Both must give the same records, value for value and of the same class:
// timestamps as Dates (json writes them in another format than the text protocol), bigints as
// exact strings, arrays, jsonb, bytea, nulls.

describe('records read as JSON', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.orm);
    const colleague = await createUser(t.app, tenant.apiKey, { email: 'json-colleague@example.com' });
    await createRequest(t.app, tenant.apiKey, { name: 'JSON read', collaborators: [colleague.userId] });
  });
  afterAll(() => t.close());

  const entities = () =>
    Object.values(t.orm.getMetadata().getAll()).filter((meta: EntityMetadata) => meta.tableName && !meta.embeddable && !meta.virtual && meta.class) as EntityMetadata[];

  async function expectSameRecords(em: Parameters<typeof findLean>[0], meta: EntityMetadata): Promise<number> {
    const filter = `from ${meta.tableName} t order by t.${meta.primaryKeys.length === 1 ? meta.properties[meta.primaryKeys[0]].fieldNames[0] : 'ctid'} limit 50`;
    const rows = await findLean(em, meta.class, `select t.* ${filter}`);
    const order = meta.primaryKeys.map((key) => `t.${meta.properties[key].fieldNames[0]}`).join(', ');
    const records = await findLeanJson(em, meta.class, `select ${recordsJson(em, meta.class, 't', order)} from (select t.* ${filter}) t`);
    expect({ table: meta.tableName, records }).toEqual({ table: meta.tableName, records: rows });
    records.forEach((record, i) => {
      expect(Object.getPrototypeOf(record)).toBe(Object.getPrototypeOf(rows[i]));
      expect((record as Record<symbol, unknown>)[LEAN_ENTITY]).toBe(meta.className);
    });
    return rows.length;
  }

  it('should give the records of every table as rows give them', async () => {
    const read: string[] = [];
    for (const meta of entities()) if ((await expectSameRecords(t.orm.em.fork(), meta)) > 0) read.push(meta.tableName);
    expect(read).toEqual(expect.arrayContaining(['request', 'request_item', 'recipient', 'collaborator', 'contact', 'app_user', 'api_key', 'organization']));
  });

  it('should keep microseconds, bigints, arrays, jsonb and bytea as the row path does', async () => {
    const rolledBack = new Error('rolled back');
    await expect(
      inTransaction(t.orm.em.fork(), async (tx) => {
        await queryRows(tx, `update request set created_at = '2026-01-02 03:04:05.123999+00', due_date = '1999-12-31 23:59:59.5+05:30', user_metadata = '{"n": 12345678901234567890, "f": 0.1, "s": "é\\"x"}' where organization_id = ?`, [tenant.organizationId]);
        await queryRows(
          tx,
          `insert into activity (id, seq, organization_id, request_id, action, actor_type, details, created_at)
           values (gen_random_uuid(), 9007199254740993, ?, (select id from request where organization_id = ? limit 1), 'json.read', 'SYSTEM', '{"at": "x"}', now())`,
          [tenant.organizationId, tenant.organizationId],
        );
        await queryRows(
          tx,
          `insert into organization_settings (organization_id, default_reminders, default_language, allowed_auth_methods, require_complete_submission, confirmation_enabled, updated_at, logo)
           values (?, 3, 'en-US', '{EMAIL,"with space"}', false, false, now(), '\\x00ff10'::bytea)
           on conflict (organization_id) do update set logo = excluded.logo, allowed_auth_methods = excluded.allowed_auth_methods`,
          [tenant.organizationId],
        );
        for (const table of ['request', 'activity', 'organization_settings']) expect(await expectSameRecords(tx, entities().find((meta) => meta.tableName === table)!)).toBeGreaterThan(0);
        const [activity] = await queryRows<{ records: { seq: string }[] }>(tx, `select ${recordsJson(tx, 'Activity', 't', 't.id')} as records from activity t where t.seq = 9007199254740993`);
        expect(activity.records[0].seq).toBe('9007199254740993');
        const [request] = await findLeanJson(tx, entities().find((meta) => meta.tableName === 'request')!.class, `select ${recordsJson(tx, 'Request', 't', 't.id')} from request t where t.organization_id = ?`, [tenant.organizationId]);
        expect((request as { createdAt: Date }).createdAt.toISOString()).toBe('2026-01-02T03:04:05.123Z');
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});
