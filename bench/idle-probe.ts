import { openSeededDatabase } from './lib/seed';
import { startServer, threadCpu } from './lib/servers';

// What an instance spends while nothing happens, charged to every event of a fan-out whose events
// come tens of milliseconds apart: one Gather server (as the bench starts it) on the bench database,
// warmed with N PATCHes (300 by default), then its CPU over four idle 5 s windows, per second, by
// thread (the main thread, and V8's and libuv's others by name).
// Usage: BENCH_PG_PORT=... npx tsx bench/idle-probe.ts [N]

const sleep = (ms: number) => new Promise((d) => setTimeout(d, ms));
/** CPU ms so far by thread: the main one, the others summed by name. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const { main, name, seconds } of threadCpu(pid)) {
    const key = main ? 'main' : name;
    out.set(key, (out.get(key) ?? 0) + seconds * 1000);
  }
  return out;
}
async function main() {
  const { db, data } = await openSeededDatabase(console.log);
  const server = await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false });
  try {
    const id = data.requestIds[0];
    for (let i = 0; i < Number(process.argv[2] ?? 300); i++) {
      const r = await fetch(`${server.url}/requests/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${data.tenants[0].apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `idle ${i}` }),
      });
      await r.text();
    }
    for (let round = 0; round < 4; round++) {
      const before = threads(server.pid);
      await sleep(5000);
      const after = threads(server.pid);
      console.log(
        `idle 5 s, ms CPU per second by thread: ${[...after]
          .map(([k, v]) => `${k} ${((v - (before.get(k) ?? 0)) / 5).toFixed(1)}`)
          .filter((s) => !s.endsWith(' 0.0'))
          .join(', ')}`,
      );
    }
  } finally {
    await server.stop();
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
