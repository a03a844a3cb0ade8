import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/kernel/db/embedded';
import { createOrm, migrate } from '../src/kernel/db/orm';
import { DATA_MODEL } from '../src/modules';

// One PostgreSQL for the whole run (embedded unless DATABASE_URL is set), one migrated template
// database, and one copy of it per jest worker: workers never share rows.
// Names carry the run's pid: runs sharing one server (DATABASE_URL) never touch each other's copies.
const RUN = `gather_test_${process.pid}`;
const TEMPLATE = `${RUN}_template`;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .once('listening', () => server.close(() => resolve(true)))
      .listen(port, '127.0.0.1');
  });
}

/** Each concurrent run gets its own server (and data directory), so runs never drop each other's databases. */
async function freePort(from: number): Promise<number> {
  for (let port = from; port < from + 50; port++) if (await portIsFree(port)) return port;
  throw new Error(`no free port for the test PostgreSQL between ${from} and ${from + 49}`);
}

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const started = Date.now();
  // The AWS SDK warns once per process that its releases after January 2027 need Node 22; the lockfile
  // holds a release that runs on 20, which `engines` declares (the README says so). Workers inherit this.
  // It is a process warning, emitted as a client is configured: the clients' logger (sdkLogger) never sees it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  let baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const port = process.env.TEST_PG_PORT ? Number(process.env.TEST_PG_PORT) : await freePort(54400);
    const server = await startEmbeddedPostgres({
      // Under the system temporary directory, which the server's own system user can always reach.
      dir: join(tmpdir(), 'gather-test-pg', String(port)),
      port,
      database: 'gather_test',
      // Durability buys nothing in a test run and costs most of its time.
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
      ownProcessGroup: false,
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
    await admin.query(`create database ${TEMPLATE}`);
    const orm = await createOrm({ url: urlFor(TEMPLATE), ...DATA_MODEL, poolMax: 1 });
    await migrate(orm);
    await orm.close();
    for (let worker = 1; worker <= globalConfig.maxWorkers; worker++) {
      await admin.query(`create database ${RUN}_${worker} template ${TEMPLATE}`);
    }
  } finally {
    await admin.end();
  }
  (globalThis as { __GATHER_TEST_DATABASES__?: unknown }).__GATHER_TEST_DATABASES__ = {
    url: baseUrl,
    names: [TEMPLATE, ...Array.from({ length: globalConfig.maxWorkers }, (_, i) => `${RUN}_${i + 1}`)],
  };
  process.env.GATHER_TEST_DATABASE_URL = urlFor(`${RUN}_WORKER`);
  process.stdout.write(
    `\ntest database ready in ${Date.now() - started} ms (${globalConfig.maxWorkers} worker copies)\n`,
  );
}
