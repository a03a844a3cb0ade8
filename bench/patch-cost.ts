import { join } from 'node:path';
import { openSeededDatabase } from './lib/seed';
import { startServer, PROFILE_DIR } from './lib/servers';

// What the fan-out's trigger costs by itself: one Gather server (as the bench starts it) on the bench
// database, nobody subscribed, PATCH /requests/:id repeated (the first 10, 20, 40, 100 PATCHes 50 ms
// apart, then 300 back to back twice, then 60 apart again), printing the server's CPU per PATCH of
// each batch and its idle CPU per second before and after. `--prof` profiles 400 more back to back
// (bench/results/profiles/patch-cost.cpuprofile; summarise it with profile.ts).
// Usage: BENCH_PG_PORT=... npx tsx bench/patch-cost.ts [--prof]

const sleep = (ms: number) => new Promise((d) => setTimeout(d, ms));
async function main() {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const requestId = data.requestIds[0];
  const server = await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: process.argv.includes('--prof') }).catch(async (err) => {
    await db.stop();
    throw err;
  });
  try {
    let k = 0;
    const patch = async () => {
      const r = await fetch(`${server.url}/requests/${requestId}`, { method: 'PATCH', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `cost ${k++}` }) });
      await r.text();
      if (r.status !== 200) throw new Error(String(r.status));
    };
    const idle = async (ms: number) => {
      const before = server.cpuSeconds();
      await sleep(ms);
      return ((server.cpuSeconds() - before) * 1000) / (ms / 1000);
    };
    console.log(`idle: ${(await idle(5000)).toFixed(1)} ms CPU per second`);
    const batch = async (label: string, count: number, gap: number) => {
      const before = server.cpuSeconds();
      const t0 = Date.now();
      for (let i = 0; i < count; i++) {
        await patch();
        if (gap) await sleep(gap);
      }
      const ms = ((server.cpuSeconds() - before) * 1000) / count;
      console.log(`${label}: ${count} PATCHes, gap ${gap} ms: ${ms.toFixed(2)} ms CPU each, ${((Date.now() - t0) / count).toFixed(1)} ms wall each`);
    };
    await batch('first', 10, 50);
    await batch('next', 20, 50);
    await batch('next', 40, 50);
    await batch('next', 100, 50);
    await batch('back to back', 300, 0);
    await batch('back to back', 300, 0);
    await batch('gap 50 after warm', 60, 50);
    if (process.argv.includes('--prof')) {
      await server.profileStart();
      await batch('profiled, back to back', 400, 0);
      await server.profileStop(join(PROFILE_DIR, 'patch-cost.cpuprofile'));
    }
    console.log(`idle: ${(await idle(5000)).toFixed(1)} ms CPU per second`);
  } finally {
    await server.stop();
    await db.stop();
  }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
