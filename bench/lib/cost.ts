import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_PG_DIR } from './database';
import type { ServerProcess } from './servers';

/**
 * CPU seconds of the embedded PostgreSQL: the postmaster and every process it started, those that
 * ended included (the postmaster reaps them: their time is in its cutime and cstime).
 */
export function postgresCpu(): number {
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

export type Cost = { cpu: number; pg: number; rate: number };

/** Runs `count` operations on `server`, `inFlight` at a time: its CPU and PostgreSQL's per operation (ms), and the rate. */
export async function costOf(server: ServerProcess, count: number, inFlight: number, operation: (server: ServerProcess) => Promise<void>): Promise<Cost> {
  const before = server.cpuSeconds();
  const pgBefore = postgresCpu();
  const t0 = Date.now();
  let left = count;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await operation(server);
    }),
  );
  const wall = Date.now() - t0;
  return { cpu: ((server.cpuSeconds() - before) * 1000) / count, pg: ((postgresCpu() - pgBefore) * 1000) / count, rate: (count * 1000) / wall };
}

/**
 * Batches of `count` operations on each server in turn (the order reversed every other batch, so
 * neither always follows the other), after a warm-up batch each; prints each batch and returns the
 * medians by label.
 */
export async function alternate(
  servers: { label: string; server: ServerProcess }[],
  options: { batches: number; count: number; warmup: number; inFlight: number; unit: string; operation: (server: ServerProcess) => Promise<void> },
): Promise<Map<string, Cost>> {
  for (const { server } of servers) await costOf(server, options.warmup, options.inFlight, options.operation);
  const results = new Map<string, Cost[]>(servers.map(({ label }) => [label, []]));
  for (let i = 0; i < options.batches; i++) {
    for (const { label, server } of i % 2 ? [...servers].reverse() : servers) {
      const r = await costOf(server, options.count, options.inFlight, options.operation);
      results.get(label)!.push(r);
      console.log(`${label}: ${r.cpu.toFixed(3)} ms CPU per ${options.unit}, PostgreSQL ${r.pg.toFixed(3)} ms, ${r.rate.toFixed(0)} ${options.unit}s/s`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return new Map([...results].map(([label, rows]) => [label, { cpu: median(rows.map((r) => r.cpu)), pg: median(rows.map((r) => r.pg)), rate: median(rows.map((r) => r.rate)) }]));
}
