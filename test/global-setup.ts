import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/kernel/db/embedded';
import { createOrm, migrate } from '../src/kernel/db/orm';
import { ENTITIES } from '../src/modules/entities';

// One PostgreSQL for the whole run (embedded unless DATABASE_URL is set), one migrated template
// database, and one copy of it per jest worker: workers never share rows.
const TEMPLATE = 'gather_test_template';

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const started = Date.now();
  let baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const server = await startEmbeddedPostgres({
      dir: join(__dirname, '..', '.data', 'test-pg'),
      port: Number(process.env.TEST_PG_PORT ?? 54399),
      database: 'gather_test',
      // Durability buys nothing in a test run and costs most of its time.
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    baseUrl = server.url;
    (globalThis as { __GATHER_PG__?: unknown }).__GATHER_PG__ = server;
  }
  const urlFor = (database: string) => {
    const url = new URL(baseUrl!);
    url.pathname = `/${database}`;
    return url.toString();
  };

  const admin = new Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.query(`create database ${TEMPLATE}`);
    const orm = await createOrm({ url: urlFor(TEMPLATE), entities: ENTITIES, poolMax: 1 });
    await migrate(orm);
    await orm.close();
    for (let worker = 1; worker <= globalConfig.maxWorkers; worker++) {
      await admin.query(`drop database if exists gather_test_${worker} with (force)`);
      await admin.query(`create database gather_test_${worker} template ${TEMPLATE}`);
    }
  } finally {
    await admin.end();
  }
  process.env.GATHER_TEST_DATABASE_URL = urlFor('gather_test_WORKER');
  process.stdout.write(`\ntest database ready in ${Date.now() - started} ms (${globalConfig.maxWorkers} worker copies)\n`);
}
