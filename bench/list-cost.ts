import { LIST_QUERY } from './lib/documents';
import { compareWithBare, numberArg, runTool } from './lib/cost';

// What a list request costs, Gather against the bare server, in the same conditions: both servers as
// the bench starts them on the bench database, the list scenario's request (20 requests with owner,
// items and recipients) with 10 in flight, in alternating batches, printing each batch's server CPU
// per request and PostgreSQL's. Steadier than the list scenario's throughput on a shared machine.
// `--against DIR` adds Gather from another checkout (a worktree of the commit to compare with, on the
// same migrations) to the alternation: before and after in the same conditions.
// Usage: BENCH_PG_PORT=... npx tsx bench/list-cost.ts [--batches N] [--requests N] [--against DIR]

const body = JSON.stringify({ query: LIST_QUERY, variables: { first: 20 } });

runTool(() =>
  compareWithBare({
    unit: 'list',
    batches: numberArg('--batches', 5),
    count: numberArg('--requests', 2000),
    warmup: 1500,
    digits: 3,
    async operation(server, apiKey, bare) {
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const r = await fetch(
        bare ? `${server.url}/requests?first=20` : `${server.url}/graphql`,
        bare ? { headers } : { method: 'POST', headers, body },
      );
      const text = await r.text();
      if (r.status !== 200 || !text.startsWith('{"data":{"requests":{"nodes":[{'))
        throw new Error(`${server.url}: ${r.status} ${text.slice(0, 300)}`);
    },
  }),
);
