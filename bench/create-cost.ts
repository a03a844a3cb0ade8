import { join } from 'node:path';
import { createBody } from './lib/documents';
import { compareWithBare, costOf, IN_FLIGHT, numberArg, runTool } from './lib/cost';
import { PROFILE_DIR } from './lib/servers';

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

const CREATES = numberArg('--creates', 600);
let n = 0;

runTool(() =>
  compareWithBare({
    unit: 'create',
    batches: numberArg('--batches', 3),
    count: CREATES,
    warmup: 800,
    digits: 2,
    async operation(server, apiKey) {
      const r = await fetch(`${server.url}/requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(createBody(++n, `cost-${server.pid}`)),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${server.url}: ${r.status} ${text}`);
    },
    async after(ours, create) {
      if (!process.argv.includes('--prof')) return;
      await ours.profileStart();
      await costOf(ours, CREATES, IN_FLIGHT, create);
      await ours.profileStop(join(PROFILE_DIR, 'create-cost.cpuprofile'));
    },
  }),
);
