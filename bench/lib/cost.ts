import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_PG_DIR } from './database';
import { openSeededDatabase } from './seed';
import { startServer, type ServerProcess } from './servers';

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
      if (Number(entry) === pid)
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      else if (Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export type Cost = { cpu: number; pg: number; rate: number };

/** Operations in flight at once, as the bench's HTTP load runs them (10 connections). */
export const IN_FLIGHT = 10;

/**
 * Runs `count` operations on `server`, `inFlight` at a time: its CPU and PostgreSQL's per operation (ms), and the rate.
 */
export async function costOf(
  server: ServerProcess,
  count: number,
  inFlight: number,
  operation: (server: ServerProcess) => Promise<void>,
): Promise<Cost> {
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
  return {
    cpu: ((server.cpuSeconds() - before) * 1000) / count,
    pg: ((postgresCpu() - pgBefore) * 1000) / count,
    rate: (count * 1000) / wall,
  };
}

/**
 * Batches of `count` operations on each server in turn (the order reversed every other batch, so
 * neither always follows the other), after a warm-up batch each; prints each batch and returns the
 * medians by label.
 */
export async function alternate(
  servers: { label: string; server: ServerProcess }[],
  options: {
    batches: number;
    count: number;
    warmup: number;
    inFlight: number;
    unit: string;
    operation: (server: ServerProcess) => Promise<void>;
  },
): Promise<Map<string, Cost>> {
  for (const { server } of servers) await costOf(server, options.warmup, options.inFlight, options.operation);
  const results = new Map<string, Cost[]>(servers.map(({ label }) => [label, []]));
  for (let i = 0; i < options.batches; i++) {
    for (const { label, server } of i % 2 ? [...servers].reverse() : servers) {
      const r = await costOf(server, options.count, options.inFlight, options.operation);
      results.get(label)!.push(r);
      console.log(
        `${label}: ${r.cpu.toFixed(3)} ms CPU per ${options.unit}, PostgreSQL ${r.pg.toFixed(3)} ms, ${r.rate.toFixed(0)} ${options.unit}s/s`,
      );
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return new Map(
    [...results].map(([label, rows]) => [
      label,
      { cpu: median(rows.map((r) => r.cpu)), pg: median(rows.map((r) => r.pg)), rate: median(rows.map((r) => r.rate)) },
    ]),
  );
}

/** Prints each Gather's medians against bare's: server CPU, and server with PostgreSQL, as ratios. */
function printAgainstBare(medians: Map<string, Cost>, against: string | undefined, digits: number): void {
  const bare = medians.get('bare')!;
  for (const [label, ours] of medians) {
    if (label === 'bare') continue;
    console.log(
      `median, ${label === 'ours' ? 'Gather' : `Gather from ${against}`}: ${ours.cpu.toFixed(digits)} ms (PostgreSQL ${ours.pg.toFixed(digits)}), bare ${bare.cpu.toFixed(digits)} ms (PostgreSQL ${bare.pg.toFixed(digits)}); ` +
        `server CPU ratio ${((bare.cpu / ours.cpu) * 100).toFixed(0)}%, with PostgreSQL ${(((bare.cpu + bare.pg) / (ours.cpu + ours.pg)) * 100).toFixed(0)}%`,
    );
  }
}

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
/** A number given on the command line (`--name N`), else `fallback`. */
export const numberArg = (name: string, fallback: number) => Number(arg(name) ?? fallback);

/**
 * The cost tools' run: Gather and the bare server as the bench starts them on the bench database
 * (with `--against DIR`, Gather from another checkout too: a worktree of the commit to compare with,
 * on the same migrations), `operation` in alternating batches on each (`operation` is given the API
 * key and whether the server is the bare one), the medians printed against bare's; `after` runs with
 * Gather's server before everything stops.
 */
export async function compareWithBare(options: {
  unit: string;
  batches: number;
  count: number;
  warmup: number;
  digits: number;
  operation: (server: ServerProcess, apiKey: string, bare: boolean) => Promise<void>;
  after?: (ours: ServerProcess, operation: (server: ServerProcess) => Promise<void>) => Promise<void>;
}): Promise<void> {
  const { db, data } = await openSeededDatabase(console.log);
  const apiKey = data.tenants[0].apiKey;
  const against = arg('--against');
  const servers: { label: string; server: ServerProcess }[] = [];
  try {
    for (const name of ['ours', 'bare'] as const)
      servers.push({ label: name, server: await startServer(name, { dbUrl: db.url, poolMax: 10, cpuProf: false }) });
    if (against)
      servers.push({
        label: 'against',
        server: await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false, root: against }),
      });
    const bare = servers[1].server;
    const operation = (server: ServerProcess) => options.operation(server, apiKey, server === bare);
    const medians = await alternate(servers, {
      batches: options.batches,
      count: options.count,
      warmup: options.warmup,
      inFlight: IN_FLIGHT,
      unit: options.unit,
      operation,
    });
    printAgainstBare(medians, against, options.digits);
    await options.after?.(servers[0].server, operation);
  } finally {
    for (const { server } of servers) await server.stop();
    await db.stop();
  }
}

/** Runs a tool's `main`, exiting with its outcome (the servers' handles would keep the process alive). */
export function runTool(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
