import { workerDatabaseUrl } from '../../support/app';
import { createOrm } from '../../../src/kernel/db/orm';
import { DATA_MODEL } from '../../../src/modules';

// The migrations are what runs in production; the entities are what the code reads and writes. A
// table or column changed on one side only shows here as the DDL MikroORM would run to match them.
//
// Only tables and columns are compared: foreign keys (their ON DELETE rules), partial and composite
// indexes and check constraints are written in the migrations alone, which the entities do not
// describe, so MikroORM's statements about them say nothing about drift.
// Written by their own statements: the outbox's and its consumers' ledger (src/kernel/events/) and the
// HTTP edge's idempotency keys and rate-limit counters (src/kernel/http/edge-store.ts), and a bulk send's rows
// (src/modules/bulk-sends/: inserted in one statement, marked by its job).
const TABLES_WITHOUT_ENTITY = ['event', 'event_consumer', 'idempotency_key', 'rate_limit_counter', 'bulk_send_row'];
// The job queue's schema is the library's, made and migrated by graphile-worker itself.
const LIBRARY_SCHEMAS = ['graphile_worker'];

const isAboutColumns = (statement: string) =>
  !LIBRARY_SCHEMAS.some((schema) => statement.includes(`"${schema}".`)) &&
  (/^create table /.test(statement) ||
    (/^drop table /.test(statement) && !TABLES_WITHOUT_ENTITY.some((table) => statement.includes(`"${table}"`))) ||
    /^alter table "[^"]+" (add column|drop column|alter column|rename column)/.test(statement));

describe('schema drift', () => {
  it('should find no table or column to change between the migrated database and the entity metadata', async () => {
    // This worker's database is a copy of the template global-setup migrated from nothing.
    const orm = await createOrm({ url: workerDatabaseUrl(), ...DATA_MODEL, poolMax: 1 });
    try {
      const ddl = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
      const statements = ddl
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter(Boolean);
      expect(statements.filter(isAboutColumns)).toEqual([]);
    } finally {
      await orm.close();
    }
  });
});
