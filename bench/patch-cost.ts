import { join } from 'node:path';
import { openSeededDatabase } from './lib/seed';
import { mainAndOthers, startServer, PROFILE_DIR, type ServerProcess } from './lib/servers';

// What the fan-out's trigger costs by itself: one Gather server (as the bench starts it) on the bench
// database, nobody subscribed, PATCH /requests/:id repeated (the first 10, 20, 40, 100 PATCHes 50 ms
// apart, then 300 back to back twice, then 60 apart again), printing the server's CPU per PATCH of
// each batch and its idle CPU per second before and after. `--prof` profiles 400 more back to back
// (bench/results/profiles/patch-cost.cpuprofile; summarise it with profile.ts).
// `--against DIR` compares instead: this checkout's server and DIR's (a checkout of the commit to
// compare with) on the same database, each warmed with 400 PATCHes, then batches alternating
// between them (`--rounds` of each: 100 back to back, or 40 `--gap` ms apart as the fan-out's
// events are), so both see the same machine; prints each one's CPU per PATCH, and the main thread's
// part (the rest is V8's collector and compiler threads).
// `--bare` compares Gather's PATCH with the bare server's (servers/bare.ts: the same statements, one
// per round trip, answering the rows): what a PATCH doing this SQL costs at least.
// Usage: BENCH_PG_PORT=... npx tsx bench/patch-cost.ts [--prof] [(--against DIR | --bare) [--gap MS] [--rounds N]]

const sleep = (ms: number) => new Promise((d) => setTimeout(d, ms));
const option = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;

/** CPU time of a process so far, in ms: its main thread's, and all its other threads' together. */
function threadCpuMs(pid: number): { main: number; other: number } {
  const { main, others } = mainAndOthers(pid);
  return { main: main * 1000, other: others * 1000 };
}

async function compare(
  patch: (server: ServerProcess) => Promise<void>,
  servers: { label: string; server: ServerProcess }[],
) {
  const gap = Number(option('--gap') ?? 0);
  const rounds = Number(option('--rounds') ?? 8);
  const count = gap ? 40 : 100;
  for (const { server } of servers) for (let i = 0; i < 400; i++) await patch(server);
  const totals = servers.map(() => ({ main: 0, other: 0, batches: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    // Each goes first in every other round.
    const order = round % 2 ? [...servers.keys()].reverse() : [...servers.keys()];
    for (const index of order) {
      const { server } = servers[index];
      const before = threadCpuMs(server.pid);
      for (let i = 0; i < count; i++) {
        await patch(server);
        if (gap) await sleep(gap);
      }
      const after = threadCpuMs(server.pid);
      totals[index].main += after.main - before.main;
      totals[index].other += after.other - before.other;
      totals[index].batches.push((after.main - before.main + after.other - before.other) / count);
    }
  }
  console.log(`${rounds} batches of ${count} PATCHes each, ${gap ? `${gap} ms apart` : 'back to back'}, alternating:`);
  for (const [index, { label }] of servers.entries()) {
    const { main, other, batches } = totals[index];
    const n = rounds * count;
    console.log(
      `  ${label}: ${((main + other) / n).toFixed(2)} ms CPU per PATCH (main thread ${(main / n).toFixed(2)}); batches ${batches.map((ms) => ms.toFixed(1)).join(' ')}`,
    );
  }
}

async function main() {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const requestId = data.requestIds[0];
  const against = option('--against');
  const bare = process.argv.includes('--bare');
  if (against || bare) {
    const servers: { label: string; server: ServerProcess }[] = [];
    try {
      servers.push({
        label: 'this checkout',
        server: await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false }),
      });
      if (against)
        servers.push({
          label: against,
          server: await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false, root: against }),
        });
      else
        servers.push({
          label: 'bare Fastify + pg',
          server: await startServer('bare', { dbUrl: db.url, poolMax: 10, cpuProf: false }),
        });
      let n = 0;
      const patch = async (server: ServerProcess) => {
        const r = await fetch(`${server.url}/requests/${requestId}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `cost ${n++}` }),
        });
        await r.text();
        if (r.status !== 200) throw new Error(String(r.status));
      };
      await compare(patch, servers);
    } finally {
      for (const { server } of servers) await server.stop();
      await db.stop();
    }
    return;
  }
  const server = await startServer('ours', {
    dbUrl: db.url,
    poolMax: 10,
    cpuProf: process.argv.includes('--prof'),
  }).catch(async (err) => {
    await db.stop();
    throw err;
  });
  try {
    let k = 0;
    const patch = async () => {
      const r = await fetch(`${server.url}/requests/${requestId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `cost ${k++}` }),
      });
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
      console.log(
        `${label}: ${count} PATCHes, gap ${gap} ms: ${ms.toFixed(2)} ms CPU each, ${((Date.now() - t0) / count).toFixed(1)} ms wall each`,
      );
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
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
