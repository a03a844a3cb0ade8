// The statements of one warm PATCH /requests/:id, in order, as the service sends them (in-process, as
// the statement counts are taken). Usage: BENCH_PG_PORT=... npx tsx bench/patch-statements.ts
import { openBenchDatabase } from './lib/database';
import { inProcessApp } from './lib/in-process';
import { seededData } from './lib/seed';

async function main() {
  const db = await openBenchDatabase(() => {}, { reuseSeed: true });
  try {
    const seeded = await seededData(db);
    const local = await inProcessApp(db.url);
    try {
      const patch = (name: string) =>
        local.app.inject({
          method: 'PATCH',
          url: `/requests/${seeded.requestIds[0]}`,
          headers: { authorization: `Bearer ${seeded.tenants[0].apiKey}` },
          payload: { name },
        });
      await patch('warm');
      local.statements.length = 0;
      const r = await patch('counted');
      if (r.statusCode !== 200) throw new Error(`PATCH answered ${r.statusCode}: ${r.body}`);
      for (const s of local.statements) console.log('---', s.replace(/\s+/g, ' '));
    } finally {
      await local.close();
    }
  } finally {
    await db.stop();
  }
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
