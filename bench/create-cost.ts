import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBody } from './lib/documents';
import { BENCH_PG_DIR } from './lib/database';
import { openSeededDatabase } from './lib/seed';
import { startServer, PROFILE_DIR, type ServerProcess } from './lib/servers';

// What a create costs, Gather against the bare server, in the same conditions: both servers as the
// bench starts them on the bench database, POST /requests (the create scenario's body) with 10 in
// flight, in alternating batches, printing each batch's server CPU per create and PostgreSQL's (every
// process of the embedded server, background workers included). Steadier than the create scenario's
// throughput on a shared machine: the CPU a create costs does not depend on what else runs.
// `--prof` profiles Gather during one more batch (bench/results/profiles/create-cost.cpuprofile;
// summarise it with profile.ts).
// `--against DIR` adds Gather from another checkout (a worktree of the commit to compare with, on the
// same migrations) to the alternation: before and after in the same conditions.
// Usage: BENCH_PG_PORT=... npx tsx bench/create-cost.ts [--batches N] [--creates N] [--against DIR] [--prof]

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const BATCHES = arg('--batches', 3);
const CREATES = arg('--creates', 600);
const IN_FLIGHT = 10;

/**
 * CPU seconds of the embedded PostgreSQL: the postmaster and every process it started, those that
 * ended included (the postmaster reaps them: their time is in its cutime and cstime).
 */
function postgresCpu(): number {
  const pid = Number(readFileSync(join(BENCH_PG_DIR, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) === pid) total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      else if (Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function main() {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const against = process.argv.includes('--against') ? process.argv[process.argv.indexOf('--against') + 1] : undefined;
  const servers: { label: string; server: ServerProcess }[] = [];
  try {
    for (const name of ['ours', 'bare'] as const) servers.push({ label: name, server: await startServer(name, { dbUrl: db.url, poolMax: 10, cpuProf: false }) });
    if (against) servers.push({ label: 'against', server: await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false, root: against }) });
    let n = 0;
    const create = async (server: ServerProcess) => {
      const r = await fetch(`${server.url}/requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(createBody(++n, `cost-${server.pid}`)),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${server.url}: ${r.status} ${text}`);
    };
    const batch = async (server: ServerProcess, count: number) => {
      const before = server.cpuSeconds();
      const pgBefore = postgresCpu();
      const t0 = Date.now();
      let left = count;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (left-- > 0) await create(server);
        }),
      );
      const wall = Date.now() - t0;
      return { cpu: ((server.cpuSeconds() - before) * 1000) / count, pg: ((postgresCpu() - pgBefore) * 1000) / count, rate: (count * 1000) / wall };
    };
    for (const { server } of servers) await batch(server, 800);
    const results = new Map<string, { cpu: number; pg: number; rate: number }[]>(servers.map(({ label }) => [label, []]));
    for (let i = 0; i < BATCHES; i++) {
      for (const { label, server } of i % 2 ? [...servers].reverse() : servers) {
        const r = await batch(server, CREATES);
        results.get(label)!.push(r);
        console.log(`${label}: ${r.cpu.toFixed(2)} ms CPU per create, PostgreSQL ${r.pg.toFixed(2)} ms, ${r.rate.toFixed(0)} creates/s`);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const summary = (label: string) => {
      const rows = results.get(label)!;
      return { cpu: median(rows.map((r) => r.cpu)), pg: median(rows.map((r) => r.pg)), rate: median(rows.map((r) => r.rate)) };
    };
    const bare = summary('bare');
    for (const { label } of servers.filter((s) => s.label !== 'bare')) {
      const ours = summary(label);
      console.log(
        `median, ${label === 'ours' ? 'Gather' : `Gather from ${against}`}: ${ours.cpu.toFixed(2)} ms (PostgreSQL ${ours.pg.toFixed(2)}), bare ${bare.cpu.toFixed(2)} ms (PostgreSQL ${bare.pg.toFixed(2)}); ` +
          `server CPU ratio ${((bare.cpu / ours.cpu) * 100).toFixed(0)}%, with PostgreSQL ${(((bare.cpu + bare.pg) / (ours.cpu + ours.pg)) * 100).toFixed(0)}%`,
      );
    }
    if (process.argv.includes('--prof')) {
      await servers[0].server.profileStart();
      await batch(servers[0].server, CREATES);
      await servers[0].server.profileStop(join(PROFILE_DIR, 'create-cost.cpuprofile'));
    }
  } finally {
    for (const { server } of servers) await server.stop();
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
