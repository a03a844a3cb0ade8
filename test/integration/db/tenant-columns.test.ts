import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { workerDatabaseUrl } from '../../support/app';
import { createOrm, migrate } from '../../../src/kernel/db/orm';
import { DATA_MODEL } from '../../../src/modules';

// Every tenant-owned row names its organization itself (not through a join), so every statement can
// filter by it and the tables can later be distributed or partitioned by organization. A new table
// joins this check by having the column: NOT NULL, and a foreign key to organization.
// The HTTP edge's idempotency keys and rate-limit counters belong to a credential or a client address,
// not to an organization (an address has none).
const NOT_TENANT_OWNED = ['organization', 'mikro_orm_migrations', 'idempotency_key', 'rate_limit_counter'];

/**
 * Drops a database of the test's own. An autovacuum worker may be in it after a migration's writes, which this role may
 * not end: the drop waits for it to leave.
 */
async function dropWhenFree(db: Client, database: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.query(`drop database ${database} with (force)`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '42501' || attempt === 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

describe('tenant columns', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: workerDatabaseUrl() });
    await db.connect();
  });
  afterAll(() => db.end());

  it('should give every tenant-owned table a NOT NULL organization_id referencing organization', async () => {
    const { rows } = await db.query<{
      table_name: string;
      is_nullable: string | null;
      references_organization: boolean;
    }>(
      `select t.table_name, c.is_nullable,
              exists (select 1 from pg_constraint k
                        join pg_attribute a on a.attrelid = k.conrelid and a.attnum = any(k.conkey)
                       where k.contype = 'f' and k.conrelid = (quote_ident(t.table_name))::regclass
                         and k.confrelid = 'organization'::regclass and a.attname = 'organization_id') as references_organization
         from information_schema.tables t
         left join information_schema.columns c
           on c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = 'organization_id'
        where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'
        order by t.table_name`,
    );
    const tables = rows.filter((row) => !NOT_TENANT_OWNED.includes(row.table_name));
    expect(tables.length).toBeGreaterThan(20);
    expect(
      tables.filter((row) => row.is_nullable !== 'NO' || !row.references_organization).map((row) => row.table_name),
    ).toEqual([]);
  });

  it('should fill organization_id of the rows that existed before the migration from their parents', async () => {
    const MIGRATION = 'Migration20261126000000_organization_columns';
    const names = DATA_MODEL.migrations.map((m) => m.name).sort();
    const before = names[names.indexOf(MIGRATION) - 1];
    const database = `gather_backfill_${process.pid}`;
    await db.query(`create database ${database}`);
    const url = new URL(workerDatabaseUrl());
    url.pathname = `/${database}`;
    const orm = await createOrm({ url: url.toString(), ...DATA_MODEL, poolMax: 1 });
    const old = new Client({ connectionString: url.toString() });
    try {
      await orm.getMigrator().up({ to: before });
      await old.connect();
      const [org, other, user, key, request, contact, recipient, item] = Array.from({ length: 8 }, () => randomUUID());
      await old.query(
        `insert into organization (id, name, created_at, updated_at) values ($1, 'Acme', now(), now()), ($2, 'Globex', now(), now());
         insert into app_user (id, organization_id, email, role, created_at, updated_at) values ($3, $1, 'a@acme.test', 'ADMIN', now(), now());
         insert into api_key (id, user_id, prefix, key_hash, created_at) values ($4, $3, 'gth_x', repeat('a', 64), now());
         insert into request (id, organization_id, owner_id, name, state, owner_opened, user_opened, verified, rejected, user_metadata, language,
                              reminders, reminder_schedule, cloud_storage_provider, require_complete_submission, disable_submission_comments,
                              mfa_enabled, skip_initial_notification, created_at, updated_at)
              values ($5, $1, $3, 'R', 'INCOMPLETE_AND_LINK_SENT', false, false, false, false, '{}', 'en', 0, '[]', 'NONE', false, false, false, false, now(), now());
         insert into contact (id, organization_id, owner_id, created_at, updated_at) values ($6, $1, $3, now(), now());
         insert into recipient (id, request_id, contact_id, position, auth_method, send_method, link_nonce, token_hash, password_hash, created_at)
              values ($7, $5, $6, 0, 'UNSET', 'DEFAULT', 'n', repeat('b', 64), repeat('c', 64), now());
         insert into request_item (id, request_id, position, type, name, required, status, is_na, created_at, updated_at)
              values ($8, $5, 0, 'UPLOAD', 'Passport', true, 'INCOMPLETE', false, now(), now());
         insert into collaborator (id, request_id, user_id, role, position, created_at) values (gen_random_uuid(), $5, $3, 'USER', 0, now());
         insert into recipient_access (recipient_id) values ($7);`.replace(
          /\$(\d)/g,
          (_, n) => `'${[org, other, user, key, request, contact, recipient, item][Number(n) - 1]}'`,
        ),
      );
      await migrate(orm);
      const filled = await old.query<{ table: string; organization_id: string }>(
        `select 'api_key' as table, organization_id from api_key union all select 'recipient', organization_id from recipient
         union all select 'request_item', organization_id from request_item union all select 'collaborator', organization_id from collaborator
         union all select 'recipient_access', organization_id from recipient_access`,
      );
      expect(filled.rows.map((row) => row.table).sort()).toEqual([
        'api_key',
        'collaborator',
        'recipient',
        'recipient_access',
        'request_item',
      ]);
      expect(filled.rows.filter((row) => row.organization_id !== org)).toEqual([]);
    } finally {
      await old.end().catch(() => undefined);
      await orm.close();
      await dropWhenFree(db, database);
    }
  });
});
