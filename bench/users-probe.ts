import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import type { CannonResult, CannonRun } from './lib/cannon-child';
import { USERS_LIST_QUERY } from './lib/documents';
import { freePort, killGatherProcesses, nodeBin, startGather, type OutsideProcess } from './lib/gather-process';
import { startPg15 } from './lib/pg15';
import { median } from './lib/report';
import { PROFILE_DIR, ROOT, startHelper, threadCpu, type Helper } from './lib/servers';
import { summarise } from './profile';

// Why does Gather's list slow once its process has served writes (issue 15)? Each variant is a fresh
// Gather process started by `npm start` on the users group's PostgreSQL 15 (data made through the API),
// with bench/lib/probe-preload.cjs loaded: window A, the list alone; then the variant's action; a few
// seconds idle (the process's CPU with no request: background work); window B, the list again. The
// same process before and after, so the difference is what the action left in it:
//   writes    `creates` POST /requests and `patches` PATCHes through its own API
//   none      nothing (the control: what a second window gains or loses by itself)
//   als       one `new AsyncLocalStorage().run()` (what MikroORM's first flush or transaction does)
//   wfirst    the writes before any list (as the issue measured), then two list windows
//   sfirst    the AsyncLocalStorage run before any list, then two list windows
//   writes24, none24, als24, writes22  the same on Node 24 / 22 (as .ci/run installs them)
// Per window: req/s, p99, the server's CPU per request (main thread, and V8's / libuv's other threads),
// collection time per request, old space, and with --trace the deopts and optimizations V8 made in it.
//
// Per window and per action, also the statements the process sent and, for each, whether pg's result
// `rows` array was already in the old generation when the statement completed (pretenured by V8).
// --gc-nvp: V8's line per scavenge (bytes promoted); --heap-sampling: a sampling heap profile per window
// keeping what survived scavenges, by allocation site; --v8-flags: V8 flags NODE_OPTIONS refuses
// (e.g. "--trace-pretenuring --trace-pretenuring-statistics", with "[probe mark]" lines between phases).
//
//   npx tsx bench/users-probe.ts [--variants writes,none,als,writes24] [--repeat 2] [--window 8] [--profile] [--trace]

const { values: args } = parseArgs({
  options: {
    variants: { type: 'string', default: 'writes,none,als,writes24' },
    repeat: { type: 'string', default: '2' },
    window: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    idle: { type: 'string', default: '5' },
    creates: { type: 'string', default: '500' },
    patches: { type: 'string', default: '100' },
    profile: { type: 'boolean', default: false },
    /** A sampling heap profile of each list window: what survived scavenges, by allocation site (.heapprofile). */
    'heap-sampling': { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    'gc-nvp': { type: 'boolean', default: false },
    /** More NODE_OPTIONS for the measured processes (e.g. --max-semi-space-size=64). */
    'node-options': { type: 'string', default: '' },
    /** V8 flags set by the preload before the service loads (NODE_OPTIONS refuses most: --trace-pretenuring, ...). */
    'v8-flags': { type: 'string', default: '' },
  },
});
/** What each variant does, in order (see above); a suffix 22 or 24 runs it on that Node line. */
const STEPS: Record<string, string[]> = {
  none: ['L', 'L'],
  writes: ['L', 'W', 'L'],
  als: ['L', 'S', 'L'],
  wfirst: ['W', 'L', 'L'],
  sfirst: ['S', 'L', 'L'],
};
const KEY = 'gather_bench_users_admin_key_0123456789abcdef';
const OUT = join(ROOT, '.data', 'bench-users', 'probe');
const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

type Window = {
  rps: number;
  p99: number;
  mainMs: number;
  otherMs: number;
  gcMs: number;
  oldMb: number;
  deopts: number;
  opts: number;
  load: number;
  activeOther: Record<string, number>;
  /** ns per awaited promise after the window (promise hooks on: several times more). */
  promiseNs: number;
  /** Collections per 1,000 requests by kind (minor, major, incremental marking steps), and major ms per request. */
  gcKinds: string;
};

async function cannon(helper: Helper, run: Omit<CannonRun, 'type'>): Promise<CannonResult> {
  helper.send({ ...run, type: 'run' });
  return helper.next<CannonResult>('done', 600_000);
}

/** Means over the scavenges V8 traced (--trace-gc-nvp) in a log file: pause, bytes copied and promoted, and phases. */
function scavenges(file: string): string {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /\bgc=s\b/.test(l));
  if (!lines.length) return 'none traced';
  const fields = [
    'pause',
    'scavenge.roots',
    'scavenge.old_to_new_slots',
    'scavenge.parallel',
    'semi_space_copied',
    'promoted',
    'total_size_before',
  ];
  const mean = (field: string) => {
    const values = lines
      .map((l) => Number(new RegExp(`(?:^|\\s)${field.replace('.', '\\.')}=([\\d.]+)`).exec(l)?.[1]))
      .filter((v) => !Number.isNaN(v));
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
  };
  return (
    `${lines.length}: ` +
    fields
      .map((f) => `${f} ${mean(f).toFixed(f.includes('size') || f.endsWith('copied') || f === 'promoted' ? 0 : 3)}`)
      .join(', ')
  );
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const pg = await startPg15(log);
  const helpers: Helper[] = [];
  const live: OutsideProcess[] = [];
  try {
    await pg.recreate();
    const list = startHelper('lib/cannon-child.ts');
    const writer = startHelper('lib/cannon-child.ts');
    helpers.push(list, writer);
    await Promise.all([list.next('ready', 30_000), writer.next('ready', 30_000)]);
    const admin = new Client({ connectionString: pg.adminUrl.replace(/\/postgres$/, '/gather_users') });
    const writes = async (server: OutsideProcess) => {
      const created = await cannon(writer, {
        url: server.url,
        apiKey: KEY,
        kind: 'create',
        connections: 10,
        amount: Number(args.creates),
      });
      if (Number(args.patches))
        await cannon(writer, {
          url: server.url,
          apiKey: KEY,
          kind: 'patch',
          connections: 10,
          amount: Number(args.patches),
          ids: created.created,
        });
      await admin.query('vacuum (analyze)');
      await admin.query('checkpoint');
      return created;
    };
    let n = 0;
    const gather = async (node: string | undefined, label: string, probePort?: number, trace?: string) => {
      // A log of this process alone (startGather appends): --gc-nvp reads the scavenges from it.
      const logFile = join(OUT, `${++n}-${label}.log`);
      rmSync(logFile, { force: true });
      const server = await startGather({
        label,
        databaseUrl: pg.url,
        apiKey: KEY,
        logFile,
        node,
        env: probePort
          ? {
              NODE_OPTIONS:
                `--require ${join(ROOT, 'bench', 'lib', 'probe-preload.cjs')} ${args['node-options']}`.trim(),
              BENCH_PROBE_PORT: String(probePort),
              ...(trace ? { BENCH_PROBE_TRACE: trace } : {}),
              ...(args['v8-flags'] ? { BENCH_PROBE_V8_FLAGS: args['v8-flags'] } : {}),
              BENCH_PROBE_YOUNG: '1',
            }
          : {},
      });
      live.push(server);
      return server;
    };
    const setup = await gather(undefined, 'setup');
    await admin.connect();
    const made = await writes(setup);
    log(`setup: ${made.requests} requests created through Gather (${made.rps.toFixed(0)}/s)`);
    await setup.stop();
    live.length = 0;

    const body = JSON.stringify({ query: USERS_LIST_QUERY, variables: { first: 20 } });
    const variants = args.variants!.split(',');
    const table: { variant: string; windows: Window[] }[] = [];
    for (let r = 0; r < Number(args.repeat); r++) {
      for (const variant of r % 2 ? [...variants].reverse() : variants) {
        const line = /(\d\d)$/.exec(variant)?.[1];
        const action = variant.replace(/\d\d$/, '');
        const node = line ? await nodeBin(line, log) : undefined;
        const probePort = await freePort();
        const trace = args.trace ? join(OUT, `trace-${variant}-${r}.txt`) : undefined;
        const server = await gather(node, variant, probePort, trace);
        const probe = async (path: string) => {
          const response = await fetch(`http://127.0.0.1:${probePort}${path}`);
          if (!response.ok) throw new Error(`probe ${path}: ${response.status} ${await response.text()}`);
          return (await response.json()) as any;
        };
        const traceSize = () => (trace && existsSync(trace) ? statSync(trace).size : 0);
        const window = async (name: string): Promise<Window> => {
          await cannon(list, {
            url: server.url,
            apiKey: KEY,
            kind: 'read',
            connections: 10,
            duration: Number(args.warmup),
            path: '/graphql',
            body,
            prefix: '{"data":{"requests"',
          });
          await probe(`/mark?text=${name}-start`);
          const heap0 = await probe('/heap');
          if (args.trace) {
            await probe(`/flags?set=--trace-deopt`);
            await probe(`/flags?set=--trace-opt`);
          }
          const traceFrom = traceSize();
          // One line per collection (V8's name=value trace) in the process's stdout, the log file: read once it stopped.
          if (args['gc-nvp']) await probe(`/flags?set=--trace-gc-nvp`);
          if (args.profile) await probe('/profile-start');
          else if (args['heap-sampling']) await probe('/heap-sampling-start');
          // The workers' and the dispatcher's statements while the list runs: what else holds the pool.
          const activeOther: Record<string, number> = {};
          let sampling = true;
          const sampler = (async () => {
            while (sampling) {
              const { rows } = await admin.query<{ query: string }>(
                `select query from pg_stat_activity where usename = 'gather_bench' and state <> 'idle'`,
              );
              for (const row of rows) {
                // The list's own statements (its page, then items, recipients and owners by request).
                if (
                  /^\s*(select page\.|select id, request_id,|select id, email, first_name, last_name from app_user)/.test(
                    row.query,
                  )
                )
                  continue;
                const key = row.query.replace(/\s+/g, ' ').slice(0, 70);
                activeOther[key] = (activeOther[key] ?? 0) + 1;
              }
              await new Promise((done) => setTimeout(done, 50));
            }
          })();
          await probe('/pg-rows');
          const load = loadavg()[0];
          const cpu0 = threadCpu(server.pid);
          const result = await cannon(list, {
            url: server.url,
            apiKey: KEY,
            kind: 'read',
            connections: 10,
            duration: Number(args.window),
            path: '/graphql',
            body,
            prefix: '{"data":{"requests"',
          });
          const cpu1 = threadCpu(server.pid);
          if (args['gc-nvp']) await probe(`/flags?set=--no-trace-gc-nvp`);
          sampling = false;
          await sampler;
          if (args.profile) await probe(`/profile-stop?path=${join(OUT, `${variant}-${r}-${name}.cpuprofile`)}`);
          else if (args['heap-sampling'])
            await probe(`/heap-sampling-stop?path=${join(OUT, `${variant}-${r}-${name}.heapprofile`)}`);
          if (args.trace) {
            await probe(`/flags?set=--no-trace-deopt`);
            await probe(`/flags?set=--no-trace-opt`);
          }
          const heap1 = await probe('/heap');
          const pgRows = (await probe('/pg-rows')) as Record<
            string,
            { statements: number; rows: number; resultOld: number; rowsOld: number; rowOld: number }
          >;
          log(
            `${variant} ${name} statements (rows) by text, ${result.requests} list requests:\n` +
              Object.entries(pgRows)
                .slice(0, 12)
                .map(
                  ([text, v]) =>
                    `    ${v.statements} (${v.rows}) old at completion: result ${v.resultOld}, rows array ${v.rowsOld}, first row ${v.rowOld}; ${text}`,
                )
                .join('\n'),
          );
          const promiseNs = (await probe('/promise-cost')).ns as number;
          let deopts = 0;
          let opts = 0;
          if (trace && existsSync(trace)) {
            const text = readFileSync(trace, 'utf8').slice(traceFrom);
            deopts = (text.match(/\[bailout \(kind:/g) ?? []).length;
            opts = (text.match(/\[completed (optimizing|compiling)/g) ?? []).length;
            writeFileSync(join(OUT, `trace-${variant}-${r}-${name}.txt`), text);
          }
          const sum = (list: ReturnType<typeof threadCpu>, main: boolean) =>
            list.filter((t) => t.main === main).reduce((s, t) => s + t.seconds, 0);
          const gcMs = ['minor_ms', 'major_ms', 'incremental_ms', 'other_ms'].reduce(
            (s, k) => s + heap1.gc[k] - heap0.gc[k],
            0,
          );
          return {
            rps: result.rps,
            p99: result.p99_ms,
            mainMs: ((sum(cpu1, true) - sum(cpu0, true)) * 1000) / result.requests,
            otherMs: ((sum(cpu1, false) - sum(cpu0, false)) * 1000) / result.requests,
            gcMs: gcMs / result.requests,
            oldMb: heap1.spaces.old_space,
            deopts,
            opts,
            load: Math.round(load * 100) / 100,
            activeOther,
            promiseNs,
            gcKinds:
              (['minor', 'major', 'incremental'] as const)
                .map((k) => `${k} ${(((heap1.gc[k] - heap0.gc[k]) * 1000) / result.requests).toFixed(1)}`)
                .join(' ') + ` major ${((heap1.gc.major_ms - heap0.gc.major_ms) / result.requests).toFixed(3)} ms/req`,
          };
        };
        // The steps: L a measured list window, W the writes, S one AsyncLocalStorage run; each action
        // is followed by `idle` seconds without requests (the process's CPU then: background work).
        const windows: Window[] = [];
        const idles: number[] = [];
        for (const step of STEPS[action]) {
          if (step === 'L') {
            windows.push(await window(`w${windows.length + 1}`));
            continue;
          }
          if (args.trace) await probe(`/flags?set=--trace-deopt`);
          const actionFrom = traceSize();
          await probe(`/mark?text=${step}-start`);
          await probe('/pg-rows');
          if (step === 'W') await writes(server);
          else await probe('/als');
          await probe(`/mark?text=${step}-end`);
          const stepRows = (await probe('/pg-rows')) as Record<string, { statements: number; rowsOld: number }>;
          const stepTotal = Object.values(stepRows).reduce(
            (sum, v) => ({ statements: sum.statements + v.statements, rowsOld: sum.rowsOld + (v.rowsOld ?? 0) }),
            { statements: 0, rowsOld: 0 },
          );
          log(
            `${variant.padEnd(9)} during ${step}: ${stepTotal.statements} statements, pg's rows array in old space at completion for ${stepTotal.rowsOld}`,
          );
          if (args.trace) {
            await probe(`/flags?set=--no-trace-deopt`);
            const text = readFileSync(trace!, 'utf8').slice(actionFrom);
            writeFileSync(join(OUT, `trace-${variant}-${r}-${step}.txt`), text);
            log(`${variant.padEnd(9)} deopts during ${step}: ${(text.match(/\[bailout \(kind:/g) ?? []).length}`);
          }
          const idle0 = server.cpuSeconds();
          await new Promise((done) => setTimeout(done, Number(args.idle) * 1000));
          idles.push(((server.cpuSeconds() - idle0) * 1000) / Number(args.idle));
        }
        const hooks = await probe('/hooks');
        log(
          `${variant.padEnd(9)} AsyncLocalStorage enabled: ${hooks.enabled_at ? `at ${hooks.enabled_at} (${hooks.storages} storages), first by\n${hooks.by}` : 'never'}`,
        );
        await server.stop();
        live.length = 0;
        const f = (w: Window) =>
          `${w.rps.toFixed(0).padStart(4)}/s p99 ${String(w.p99).padStart(3)} main ${w.mainMs.toFixed(3)} other ${w.otherMs.toFixed(3)} gc ${w.gcMs.toFixed(3)} ms/req old ${w.oldMb} MB promise ${w.promiseNs.toFixed(0)} ns [${w.gcKinds}]${args.trace ? ` deopt ${w.deopts} opt ${w.opts}` : ''} load ${w.load}`;
        windows.forEach((w, i) => {
          log(`${variant.padEnd(9)} L${i + 1} ${f(w)}`);
          const others = Object.entries(w.activeOther)
            .sort((x, y) => y[1] - x[1])
            .slice(0, 3);
          if (others.length)
            log(
              `${variant.padEnd(9)}    other statements seen active: ${others.map(([q, c]) => `${c}× ${q}`).join(' | ')}`,
            );
        });
        if (idles.length)
          log(`${variant.padEnd(9)} idle after each action: ${idles.map((x) => x.toFixed(1)).join(', ')} ms CPU/s`);
        table.push({ variant, windows });
        if (args['gc-nvp']) log(`${variant.padEnd(9)} scavenges in the list windows: ${scavenges(server.log)}`);
      }
    }
    log(
      'summary (medians over repeats), per list window: main-thread CPU / other threads / collections, ms per request; req/s; p99',
    );
    for (const variant of variants) {
      const rows = table.filter((t) => t.variant === variant);
      const parts = rows[0].windows.map((_, i) => {
        const m = (pick: (w: Window) => number) => median(rows.map((t) => pick(t.windows[i])));
        return (
          `L${i + 1} ${m((w) => w.mainMs).toFixed(3)} / ${m((w) => w.otherMs).toFixed(3)} / ${m((w) => w.gcMs).toFixed(3)}, ` +
          `${m((w) => w.rps).toFixed(0)}/s, p99 ${m((w) => w.p99)}${args.trace ? `, deopts ${m((w) => w.deopts)}` : ''}, old ${m((w) => w.oldMb)} MB`
        );
      });
      log(`${variant.padEnd(9)} [${STEPS[variant.replace(/\d\d$/, '')].join(' ')}] ${parts.join('; ')}`);
    }
    if (args.profile)
      log(`profiles in ${relative(ROOT, OUT)} (npx tsx bench/profile.ts FILE); ${summarise.name} summarises them`);
    await admin.end();
  } finally {
    await Promise.allSettled(live.map((s) => s.stop()));
    await Promise.allSettled(helpers.map((h) => h.stop()));
    await pg.stop();
  }
}

void PROFILE_DIR;
process.on('exit', killGatherProcesses);
main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
