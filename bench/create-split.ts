import { buildApp } from '../src/app';
import { Db } from '../src/kernel/db/db';
import { createOrm } from '../src/kernel/db/orm';
import { DATA_MODEL } from '../src/modules';
import { postgresCpu } from './lib/cost';
import { createBody } from './lib/documents';
import { benchConfig } from './lib/in-process';
import { openSeededDatabase } from './lib/seed';

// Where PostgreSQL's CPU per create goes, in-process (`app.inject`, 10 in flight) on the bench
// database: the service with its job queue running as a server runs it (each create's event job queues
// its invitations, whose jobs send them), PostgreSQL's CPU per create (every process of the
// embedded server) and the statements per create by kind. One Gather server and no other: with
// `create-cost.ts --against` two instances' workers and listeners share every commit. `--no-workers`
// runs the creates alone, then the jobs they queued (`jobs.runDue`), each measured apart.
// Usage: BENCH_PG_PORT=... npx tsx bench/create-split.ts [--creates N] [--no-workers]

const at = process.argv.indexOf('--creates');
const CREATES = at >= 0 ? Number(process.argv[at + 1]) : 1000;
const workers = !process.argv.includes('--no-workers');

async function main() {
  const { db, data } = await openSeededDatabase(() => undefined);
  const statements: string[] = [];
  const orm = await createOrm({ url: db.url, ...DATA_MODEL, poolMax: 1 });
  const pool = new Db({
    url: db.url,
    poolMax: 10,
    metadata: orm.getMetadata(),
    onStatement: (sql) => statements.push(sql),
  });
  const app = await buildApp({
    config: benchConfig(),
    orm,
    db: pool,
    runJobs: workers,
  });
  await app.ready();
  try {
    const headers = { authorization: `Bearer ${data.tenants[0].apiKey}`, 'content-type': 'application/json' };
    let n = 0;
    const load = async (count: number) => {
      let left = count;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (left-- > 0) {
            const r = await app.inject({
              method: 'POST',
              url: '/requests',
              headers,
              payload: createBody(++n, `split-${process.pid}`),
            });
            if (r.statusCode !== 200) throw new Error(r.body.slice(0, 300));
          }
        }),
      );
    };
    /** Runs the queued jobs; answers how many invitations they settled. */
    const drain = async () => {
      const settled = async () =>
        (await pool.rows<{ n: number }>(`select count(*)::int as n from notification where status <> 'PENDING'`))[0].n;
      const before = await settled();
      await app.jobs.runDue();
      return (await settled()) - before;
    };
    const perCreate = (seconds: number) => `${((seconds / CREATES) * 1000).toFixed(3)} ms`;
    // What the workers still do after the last create is counted with it.
    const settle = () => (workers ? new Promise((done) => setTimeout(done, 500)) : drain());
    await load(300);
    await settle();
    for (let round = 1; round <= 3; round++) {
      statements.length = 0;
      let pg = postgresCpu();
      let cpu = process.cpuUsage();
      await load(CREATES);
      if (workers) await settle();
      const used = process.cpuUsage(cpu);
      console.log(
        `round ${round}: PostgreSQL ${perCreate(postgresCpu() - pg)} per create, this process ${perCreate((used.user + used.system) / 1e6)}${workers ? ' (workers running)' : ' (creates alone)'}`,
      );
      if (!workers) {
        pg = postgresCpu();
        cpu = process.cpuUsage();
        const sent = await drain();
        const drained = process.cpuUsage(cpu);
        console.log(
          `  then the jobs, ${sent} invitations: PostgreSQL ${perCreate(postgresCpu() - pg)} per create, this process ${perCreate((drained.user + drained.system) / 1e6)}`,
        );
      }
      const kinds = new Map<string, number>();
      for (const sql of statements) {
        const kind = sql.trim().replace(/\s+/g, ' ').slice(0, 48);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      for (const [kind, count] of [...kinds].sort((a, b) => b[1] - a[1]))
        console.log(`  ${(count / CREATES).toFixed(3)} per create: ${kind}`);
    }
  } finally {
    await app.close();
    await pool.close();
    await orm.close();
    await db.stop();
  }
}
main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
