import { Client } from 'pg';
import { queueIdle } from './lib/queue-idle';
import { numberArg, postgresCpu, runTool } from './lib/cost';
import { openSeededDatabase } from './lib/seed';
import { startServer, type ServerProcess } from './lib/servers';

// One bulk send of N rows against N single creates of the same template through the API (issue 29: a bulk send
// must cost no more per request than single creates). Gather as the bench starts it, its job queue running, on the
// bench database; the two in alternating batches. Each batch runs until every request exists and the job queue has
// nothing due left (the invitations their events start included), and prints the wall time and the CPU per request
// of Gather and of PostgreSQL. Single creates go 10 in flight, as the create scenario's.
// Usage: BENCH_PG_PORT=... npx tsx bench/bulk-send-cost.ts [--rows N] [--batches N]

const ROWS = numberArg('--rows', 300);
const BATCHES = numberArg('--batches', 2);
const IN_FLIGHT = 10;

type Batch = { wallMs: number; cpuMs: number; pgMs: number };

runTool(async () => {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  let server: ServerProcess | undefined;
  try {
    server = await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false });
    const ours = server;
    const { rows } = await pg.query<{ id: string }>('select id from template where organization_id = $1 limit 1', [
      data.tenants[0].organizationId,
    ]);
    const templateId = rows[0].id;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${ours.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const idle = () => queueIdle(pg);
    let batch = 0;
    const recipients = (tag: string) =>
      Array.from({ length: ROWS }, (_, i) => ({ first_name: 'Ada', email: `bulk-${tag}-${batch}-${i}@bench.example` }));
    const measure = async (work: () => Promise<void>): Promise<Batch> => {
      await idle();
      const cpu = ours.cpuSeconds();
      const pgCpu = postgresCpu();
      const t0 = Date.now();
      await work();
      await idle();
      return {
        wallMs: (Date.now() - t0) / ROWS,
        cpuMs: ((ours.cpuSeconds() - cpu) * 1000) / ROWS,
        pgMs: ((postgresCpu() - pgCpu) * 1000) / ROWS,
      };
    };
    const single = () =>
      measure(async () => {
        const queue = recipients('single');
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            for (let next = queue.shift(); next; next = queue.shift())
              await call('POST', '/requests', { template_id: templateId, recipients: [next] });
          }),
        );
      });
    const bulk = () =>
      measure(async () => {
        const { id } = await call('POST', `/templates/${templateId}/bulk-sends`, { rows: recipients('bulk') });
        // Its job is due until it ends: the queue's idleness says so without polling the API (which costs CPU).
        await idle();
        const { status } = await call('GET', `/bulk-sends/${id}`);
        if (status !== 'COMPLETED') throw new Error(`bulk send ${id}: ${status}`);
      });
    const results: Record<'single' | 'bulk', Batch[]> = { single: [], bulk: [] };
    for (; batch <= BATCHES; batch++) {
      // Batch 0 warms both up and is not counted; then the order alternates.
      const order = batch % 2 ? (['bulk', 'single'] as const) : (['single', 'bulk'] as const);
      for (const kind of order) {
        const r = await (kind === 'bulk' ? bulk() : single());
        console.log(
          `${batch ? `batch ${batch}` : 'warm-up'} ${kind.padEnd(6)}: ${r.wallMs.toFixed(2)} ms per request, Gather CPU ${r.cpuMs.toFixed(2)} ms, PostgreSQL ${r.pgMs.toFixed(2)} ms`,
        );
        if (batch) results[kind].push(r);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const of = (kind: 'single' | 'bulk', key: keyof Batch) => median(results[kind].map((r) => r[key]));
    console.log(
      `median per request, ${ROWS} requests: bulk ${of('bulk', 'wallMs').toFixed(2)} ms wall, ${of('bulk', 'cpuMs').toFixed(2)} ms Gather CPU, ${of('bulk', 'pgMs').toFixed(2)} ms PostgreSQL; ` +
        `single ${of('single', 'wallMs').toFixed(2)} ms wall, ${of('single', 'cpuMs').toFixed(2)} ms Gather CPU, ${of('single', 'pgMs').toFixed(2)} ms PostgreSQL`,
    );
  } finally {
    await server?.stop();
    await pg.end();
    await db.stop();
  }
});
