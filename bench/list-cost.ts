import { LIST_QUERY } from './lib/documents';
import { alternate } from './lib/cost';
import { openSeededDatabase } from './lib/seed';
import { startServer, type ServerProcess } from './lib/servers';

// What a list request costs, Gather against the bare server, in the same conditions: both servers as
// the bench starts them on the bench database, the list scenario's request (20 requests with owner,
// items and recipients) with 10 in flight, in alternating batches, printing each batch's server CPU
// per request and PostgreSQL's. Steadier than the list scenario's throughput on a shared machine.
// `--against DIR` adds Gather from another checkout (a worktree of the commit to compare with, on the
// same migrations) to the alternation: before and after in the same conditions.
// Usage: BENCH_PG_PORT=... npx tsx bench/list-cost.ts [--batches N] [--requests N] [--against DIR]

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

async function main() {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const against = process.argv.includes('--against') ? process.argv[process.argv.indexOf('--against') + 1] : undefined;
  const servers: { label: string; server: ServerProcess }[] = [];
  const body = JSON.stringify({ query: LIST_QUERY, variables: { first: 20 } });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  try {
    for (const name of ['ours', 'bare'] as const) servers.push({ label: name, server: await startServer(name, { dbUrl: db.url, poolMax: 10, cpuProf: false }) });
    if (against) servers.push({ label: 'against', server: await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false, root: against }) });
    const list = async (server: ServerProcess) => {
      const bare = server === servers[1].server;
      const r = await fetch(bare ? `${server.url}/requests?first=20` : `${server.url}/graphql`, bare ? { headers } : { method: 'POST', headers, body });
      const text = await r.text();
      if (r.status !== 200 || !text.startsWith('{"data":{"requests":{"nodes":[{')) throw new Error(`${server.url}: ${r.status} ${text.slice(0, 300)}`);
    };
    const medians = await alternate(servers, { batches: arg('--batches', 5), count: arg('--requests', 2000), warmup: 1500, inFlight: 10, unit: 'list', operation: list });
    const bare = medians.get('bare')!;
    for (const [label, ours] of medians) {
      if (label === 'bare') continue;
      console.log(
        `median, ${label === 'ours' ? 'Gather' : `Gather from ${against}`}: ${ours.cpu.toFixed(3)} ms (PostgreSQL ${ours.pg.toFixed(3)}), bare ${bare.cpu.toFixed(3)} ms (PostgreSQL ${bare.pg.toFixed(3)}); ` +
          `server CPU ratio ${((bare.cpu / ours.cpu) * 100).toFixed(0)}%, with PostgreSQL ${(((bare.cpu + bare.pg) / (ours.cpu + ours.pg)) * 100).toFixed(0)}%`,
      );
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
