import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LIST_QUERY } from './lib/documents';
import { openBenchDatabase, type BenchDatabase } from './lib/database';
import {
  checkFanout,
  fanoutPayload,
  fanoutResult,
  measureFanout,
  unwatchedCpuMs,
  type FanoutOptions,
  type FanoutRun,
  type FanoutSide,
} from './lib/fanout';
import { runFiles } from './lib/file-throughput';
import { BENCH_DATA_DIR, benchConfig, inProcessApp, type InProcessApp } from './lib/in-process';
import { measure, type RunFigures } from './lib/load';
import {
  machine,
  markdownTable,
  progressLine,
  summarise as summariseRuns,
  targetText,
  textTable,
  type ScenarioResult,
} from './lib/report';
import { buildGroups, type Servers } from './lib/scenarios';
import { SEED_TABLES, seededData, type SeededData } from './lib/seed';
import { killAllServers, PROFILE_DIR, ROOT, startServer, type ServerName, type ServerProcess } from './lib/servers';
import { runWebhooks } from './lib/webhooks';
import { runNotify } from './lib/notify';
import { runReminders } from './lib/reminders';
import { measureScale, openScaleDatabase, SMALL_REQUESTS } from './lib/scale';
import { summarise as summariseProfile } from './profile';
import { runUsers } from './lib/users';
import { queueIdle } from './lib/queue-idle';
import { Client } from 'pg';
import { killGatherProcesses } from './lib/gather-process';

const packageVersion = (name: string): string =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

// `npm run bench`: every scenario of issue 5 on loopback, against a fresh, seeded database; each figure
// a ratio against a baseline measured in the same run, in alternation. See bench/README.md.

const HELP = `usage: npm run bench -- [options]
  --quick              smoke run: 1 round, 1 s warm-up, 3 s per measurement (under two minutes)
  --rounds N           rounds of alternation per scenario (default 3; 1 with --quick)
  --duration S         seconds measured per run (default 10; 3 with --quick)
  --warmup S           seconds of warm-up before each run, discarded (default 3; 1 with --quick)
  --connections N      concurrent connections of the load generator (default 10)
  --pool N             PostgreSQL connections of each server (default 10)
  --only LIST          comma-separated groups: list,get,rest,sql,create,fanout,webhooks,files,notify,reminders,scale,users (default all)
  --fanout-sizes LIST  subscriber counts of the fan-out (default 100,1000,10000,20000; 100,1000 with --quick)
  --fanout-events N    measured events per subscriber count (default 20), after 2 discarded ones
  --fanout-per-process N  subscribers per load process (default 5000)
  --webhook-events N   events of each webhook burst (default 2000; 200 with --quick)
  --webhook-low-events N     events of the low-load webhook step, one PATCH at a time (default 200)
  --webhook-low-interval MS  milliseconds between two PATCHes of that step (default 50)
  --file-mb N          size of the file uploaded and downloaded (default 200; 32 with --quick)
  --file-rounds N      rounds of the file scenario (default 3; 1 with --quick)
  --notify-connections LIST  concurrent committing connections of the notify scenario (default 1,4,16,64; 1,16 with --quick)
  --notify-seconds S   seconds per side and level of the notify scenario (default 5; 2 with --quick)
  --reminders N        periodic reminders due at once in the reminder scenario (default 10000; 500 with --quick)
  --scale-requests N   requests of the large organization of the scale scenario (default 1000000; 10000
                       with --quick), beside one of 500; seeded once per schema and size, then copied
  --scale-samples N    timed requests per read and organization in the scale scenario (default 200; 30 with --quick)
  --users-creates N    users group: requests created through Gather before the rounds and before each phase (b) (default 500)
  --users-patches N    users group: PATCH /requests/:id after those creates (default 100)
  --users-write-rate N users group: creates and PATCHes per second during phase (c) (default 50)
  --users-node V       users group: Node line of the Gather process, 20 (this machine's), 22 or 24 (default 20)
  --users-phases LIST  users group: phases to run, of a,b,c (default a,b,c)
  --profile NAMES      CPU-profile these servers (ours,apollo,bare) during each measured run (V8's
                       sampling profiler, the one behind node --cpu-prof, started and stopped around
                       the run); writes bench/results/profiles/<contender>-r<round>.cpuprofile and a summary
                       (with ours: also fanout-n<N>.cpuprofile, webhooks-delivery.cpuprofile and reminders.cpuprofile;
                       with bare: also fanout-bare-n<N>.cpuprofile, the bare ws broadcast)
  --cpu-prof NAMES     run these servers under node --cpu-prof for their whole life (start-up included)
  --show-sql           print the statements of the GraphQL list query (scenario 6)
  --fresh-seed         seed even when a seed saved for this source tree exists (see bench/README.md)
  --out FILE           where to write the JSON (default bench/results/latest.json; partial.json with --only)
`;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    pool: { type: 'string' },
    only: { type: 'string' },
    'fanout-sizes': { type: 'string' },
    'fanout-events': { type: 'string' },
    'fanout-per-process': { type: 'string' },
    'webhook-events': { type: 'string' },
    'webhook-low-events': { type: 'string' },
    'webhook-low-interval': { type: 'string' },
    'file-mb': { type: 'string' },
    'file-rounds': { type: 'string' },
    'notify-connections': { type: 'string' },
    'notify-seconds': { type: 'string' },
    reminders: { type: 'string' },
    'scale-requests': { type: 'string' },
    'scale-samples': { type: 'string' },
    'users-creates': { type: 'string' },
    'users-patches': { type: 'string' },
    'users-write-rate': { type: 'string' },
    'users-node': { type: 'string' },
    'users-phases': { type: 'string' },
    profile: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'show-sql': { type: 'boolean', default: false },
    'fresh-seed': { type: 'boolean', default: false },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const quick = args.quick!;
const options = {
  rounds: Number(args.rounds ?? (quick ? 1 : 3)),
  duration: Number(args.duration ?? (quick ? 3 : 10)),
  warmup: Number(args.warmup ?? (quick ? 1 : 3)),
  connections: Number(args.connections ?? 10),
  pool: Number(args.pool ?? 10),
};
const fanoutOptions: FanoutOptions = {
  sizes: (args['fanout-sizes'] ?? (quick ? '100,1000' : '100,1000,10000,20000'))
    .split(',')
    .map((n) => Number(n.replace(/_/g, ''))),
  events: Number(args['fanout-events'] ?? 20),
  warmupEvents: 2,
  warmupTriggers: 300,
  gapMs: 50,
  perProcess: Number(args['fanout-per-process'] ?? 5000),
  connectWindow: 200,
};
const webhookEvents = Number(args['webhook-events'] ?? (quick ? 200 : 2000));
const webhookLowLoad = {
  events: Number(args['webhook-low-events'] ?? 200),
  intervalMs: Number(args['webhook-low-interval'] ?? 50),
};
const fileMb = Number(args['file-mb'] ?? (quick ? 32 : 200));
const reminderCount = Number(args.reminders ?? (quick ? 500 : 10_000));
const fileRounds = Number(args['file-rounds'] ?? (quick ? 1 : 3));
const scaleRequests = Number((args['scale-requests'] ?? (quick ? '10000' : '1000000')).replace(/_/g, ''));
const scaleSamples = Number(args['scale-samples'] ?? (quick ? 30 : 200));
const notifyLevels = (args['notify-connections'] ?? (quick ? '1,16' : '1,4,16,64')).split(',').map(Number);
const notifySeconds = Number(args['notify-seconds'] ?? (quick ? 2 : 5));
const ALL_GROUPS = [
  'list',
  'get',
  'rest',
  'sql',
  'create',
  'fanout',
  'webhooks',
  'files',
  'notify',
  'reminders',
  'scale',
  'users',
];
/** Groups served by the ours / apollo / bare trio; the others start servers of their own. */
const HTTP_GROUPS = ['list', 'get', 'rest', 'create'];
/** Contenders per group (see lib/scenarios.ts), for the time estimate. */
const CONTENDERS: Record<string, number> = { list: 4, get: 2, rest: 2, create: 2 };
const requested = args.only ? args.only.split(',').map((s) => s.trim()) : ALL_GROUPS;
for (const name of requested)
  if (!ALL_GROUPS.includes(name)) throw new Error(`--only: unknown group ${name} (${ALL_GROUPS.join(', ')})`);
// Always in the full run's order: a group that writes (create) must not run before one whose
// equivalence check reads what it wrote while its last requests still commit.
const only = ALL_GROUPS.filter((name) => requested.includes(name));
const names = (list: string | undefined) => new Set((list ?? '').split(',').filter(Boolean) as ServerName[]);
const profiled = names(args.profile);
const cpuProf = names(args['cpu-prof']);
for (const name of [...profiled, ...cpuProf])
  if (!['ours', 'apollo', 'bare'].includes(name)) throw new Error(`unknown server ${name} (ours, apollo, bare)`);
// Profiling slows the profiled server: such runs, and partial ones, do not replace latest.json.
const complete = only.length === ALL_GROUPS.length && profiled.size === 0 && cpuProf.size === 0;
const outFile = args.out ?? join('bench', 'results', complete ? 'latest.json' : 'partial.json');

const started = Date.now();
const loadAtStart = Math.round(loadavg()[0] * 100) / 100;
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s`;
const log = (line: string) => process.stdout.write(`[${elapsed()}] ${line}\n`);

let db: BenchDatabase | undefined;
let local: InProcessApp | undefined;
const servers: Partial<Servers> = {};
/** Every server process started, for the clean-up and the --cpu-prof summaries. */
const allServers: ServerProcess[] = [];
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.allSettled(allServers.map((s) => s.stop()));
    killAllServers();
    killGatherProcesses();
    await local?.close().catch(() => undefined);
    if (db) {
      log('stopping PostgreSQL');
      await Promise.race([db.stop().catch(() => undefined), new Promise((done) => setTimeout(done, 15_000))]);
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the servers and PostgreSQL`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  killAllServers();
  killGatherProcesses();
});

async function statementScenario(app: InProcessApp, apiKey: string): Promise<ScenarioResult> {
  const counts: Record<string, number> = {};
  const list = (first: number) =>
    app.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: { query: LIST_QUERY, variables: { first } },
    });
  // The instance resolves a key once, then keeps its caller, and keeps the users it read (the owners:
  // src/kernel/db/shared-cache.ts): counted as the load sees them, after a first list.
  await list(100);
  for (const first of [1, 20, 100]) {
    app.statements.length = 0;
    const response = await list(first);
    const body = response.json() as { data?: { requests: { nodes: unknown[] } }; errors?: unknown };
    if (response.statusCode !== 200 || body.errors || body.data?.requests.nodes.length !== first) {
      throw new Error(`statement count: the list query with first ${first} failed: ${response.body.slice(0, 300)}`);
    }
    counts[`first_${first}`] = app.statements.length;
    if (args['show-sql']) {
      log(`statements of the list query with first ${first}:`);
      for (const sql of app.statements) process.stdout.write(`    ${sql.replace(/\s+/g, ' ')}\n`);
    }
  }
  const values = Object.values(counts);
  const constant = values.every((v) => v === values[0]);
  return {
    name: 'SQL statements per GraphQL list query (1, 20, 100 requests)',
    ours: counts,
    baseline: null,
    ratio: null,
    target: 'constant',
    met: constant,
    note: "statements sent by the service for one list query, after a first list (the API key's caller and the owners then come from the instance's caches: one statement more each on a first request)",
  };
}

const usersPhases = (args['users-phases'] ?? 'a,b,c').split(',').map((p) => p.trim());
for (const phase of usersPhases)
  if (!['a', 'b', 'c'].includes(phase)) throw new Error(`--users-phases: unknown ${phase}`);

/** The users group (issue 15): a PostgreSQL 15 of its own, Gather by npm start, PostGraphile 4 and 5. */
async function usersGroup(title: string) {
  return runUsers({
    rounds: options.rounds,
    duration: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    pool: options.pool,
    creates: Number(args['users-creates'] ?? 500),
    patches: Number(args['users-patches'] ?? 100),
    writeRate: Number(args['users-write-rate'] ?? 50),
    gatherNode: args['users-node'] ?? '20',
    phases: usersPhases,
    log: (line) => log(`${title} · ${line}`),
  });
}

/** `--only users`: no embedded PostgreSQL, no seed, only the group's own database and servers. */
async function usersOnly(): Promise<void> {
  log(
    `Gather benchmarks: the users group, ${options.rounds} round(s), ${options.warmup} s warm-up + ${options.duration} s per run, phases ${usersPhases.join(', ')}`,
  );
  const { results, info } = await usersGroup('[1/1] users');
  const report = { machine: machine({ users: info, load_average_1m_at_start: loadAtStart }), scenarios: results };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(resolve(ROOT, outFile), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(resolve(ROOT, outFile.replace(/\.json$/, '.md')), `${markdownTable(results)}\n`);
  process.stdout.write(`\n${textTable(results)}\n\n`);
  const targeted = results.filter((s) => s.target !== null);
  log(`${targeted.filter((s) => s.met).length} of ${targeted.length} targets met; wrote ${outFile}`);
}

async function main(): Promise<void> {
  if (only.length === 1 && only[0] === 'users') return usersOnly();
  const perRun = options.warmup + options.duration;
  log(
    `Gather benchmarks${quick ? ' (quick)' : ''}: ${options.rounds} round(s), ${options.warmup} s warm-up + ${options.duration} s per run, ` +
      `${options.connections} connections, pool ${options.pool}; groups ${only.join(', ')} (about ${Math.ceil((perRun * options.rounds * only.reduce((n, g) => n + (CONTENDERS[g] ?? 0), 0)) / 60)} min of HTTP load` +
      `${only.some((g) => !HTTP_GROUPS.includes(g) && g !== 'sql') ? ', plus the fan-out, webhook and file scenarios' : ''})`,
  );
  const opening = Date.now();
  db = await openBenchDatabase(log, { reuseSeed: !args['fresh-seed'] });
  if (loadAtStart > 1)
    log(
      `note: the 1-minute load average is ${loadAtStart} before starting: other processes compete for the ${cpus().length} cores, absolute figures will be low and noisy (ratios less so)`,
    );
  log(`database ready: ${db.description}; ${db.server.version.split(' on ')[0]}`);

  const counts = (d: SeededData) => SEED_TABLES.map((table) => `${d.counts[table]} ${table}`).join(', ');
  const copied = db.cachedSeed !== null;
  // Saved as a template database when seeded here, so the next run on the same source tree starts from a copy.
  const data = await seededData(db);
  log(
    copied
      ? `database copied in ${((Date.now() - opening) / 1000).toFixed(1)} s from the seed an earlier run saved for this source tree ` +
          `(seeding took ${(data.ms / 1000).toFixed(1)} s then; --fresh-seed seeds again): ${counts(data)}`
      : `seeded in ${(data.ms / 1000).toFixed(1)} s: ${counts(data)}`,
  );
  local = await inProcessApp(db.url);
  const apiKey = data.tenants[0].apiKey;

  const { groups, comparisons } = buildGroups(data.requestIds, data.tenants[0].organizationId);
  const chosen = groups.filter((g) => only.includes(g.key));
  const needed = new Set(chosen.flatMap((g) => g.contenders.map((c) => c.server)));
  const start = async (
    name: ServerName,
    extra: { env?: Record<string, string>; label?: string; dbUrl?: string } = {},
  ) => {
    const server = await startServer(name, {
      dbUrl: db!.url,
      poolMax: options.pool,
      cpuProf: cpuProf.has(name),
      ...extra,
    });
    allServers.push(server);
    return server;
  };
  await Promise.all(
    [...needed].map(async (name) => {
      servers[name] = await start(name);
    }),
  );
  if (needed.size)
    log(
      `servers listening: ${[...needed].map((n) => `${n} ${servers[n]!.url} (pid ${servers[n]!.pid}, ${servers[n]!.rssMb().toFixed(0)} MB)`).join('; ')}`,
    );

  const runs = new Map<string, RunFigures[]>();
  const profiles: { contender: string; round: number; path: string }[] = [];
  const results: ScenarioResult[] = [];
  const groupCount = only.length;
  let groupIndex = 0;
  const load = { connections: options.connections, duration: options.duration, warmup: options.warmup, apiKey };

  const runGroup = async (key: string) => {
    const group = chosen.find((g) => g.key === key)!;
    groupIndex++;
    log(
      `[${groupIndex}/${groupCount}] ${group.title}: checking that every contender answers the same: ${await group.check(servers as Servers, apiKey, db!.url)}`,
    );
    for (let round = 0; round < options.rounds; round++) {
      // Each round rotates the order, so no side always runs first (A, B / B, A / ...).
      const order = group.contenders.map((_, i) => group.contenders[(i + round) % group.contenders.length]);
      for (const contender of order) {
        const profilePath = profiled.has(contender.server)
          ? join(PROFILE_DIR, `${contender.key}-r${round + 1}.cpuprofile`)
          : undefined;
        if (profilePath) mkdirSync(PROFILE_DIR, { recursive: true });
        const figures = await measure(servers[contender.server]!, contender.target, load, profilePath);
        // Gather's writes leave work to its job queue: done before the next run, which it would slow down.
        if (contender.server === 'ours' && group.key === 'create') {
          const pg = new Client({ connectionString: db!.url });
          await pg.connect();
          const waited = await queueIdle(pg).finally(() => pg.end());
          log(
            `[${groupIndex}/${groupCount}] ${group.title}: Gather's job queue did the run's consumers' work in ${(waited / 1000).toFixed(1)} s more`,
          );
        }
        if (profilePath) profiles.push({ contender: contender.key, round, path: profilePath });
        if (!runs.has(contender.key)) runs.set(contender.key, []);
        runs.get(contender.key)!.push(figures);
        log(
          `[${groupIndex}/${groupCount}] ${group.title} · round ${round + 1}/${options.rounds} · ${contender.label.padEnd(28)} ${progressLine(figures)}`,
        );
      }
    }
  };

  for (const key of only.filter((g) => HTTP_GROUPS.includes(g) || g === 'sql')) {
    if (key === 'sql') {
      groupIndex++;
      const result = await statementScenario(local, apiKey);
      log(
        `[${groupIndex}/${groupCount}] statements per list query: ${JSON.stringify(result.ours)} (${result.met ? 'constant' : 'NOT constant'})`,
      );
      results.push(result);
      continue;
    }
    await runGroup(key);
  }

  // The event and file scenarios run on fresh Gather processes of their own, with nothing else of the
  // service running: the trio and the in-process app each hold an event listener and a job queue,
  // which would take deliveries from the measured instance and handle every event besides it.
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await local.close();
  local = undefined;
  const fanoutResults: ScenarioResult[] = [];
  const webhookResults: ScenarioResult[] = [];
  const fileResults: ScenarioResult[] = [];
  const requestId = data.requestIds[0];

  // Files and webhooks run before the fan-out: after driving tens of thousands of sockets, this
  // runner process was measured slower at moving bytes (see bench/README.md, Method).
  let eventsGather: ServerProcess | undefined;
  // Gather for the file and webhook groups: one process, its job queue stopped until the
  // webhook group has queued its backlog (files do not depend on the queue).
  const eventsInstance = async () =>
    (eventsGather ??= await start('ours', {
      label: 'ours-events',
      env: only.includes('webhooks') ? { BENCH_DELIVER_WEBHOOKS: '0' } : {},
    }));
  if (only.includes('files')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] file throughput`;
    const gather = await eventsInstance();
    const profilePath = profiled.has('ours') ? join(PROFILE_DIR, 'files.cpuprofile') : undefined;
    if (profilePath) mkdirSync(PROFILE_DIR, { recursive: true });
    fileResults.push(
      ...(await runFiles({
        gather,
        apiKey,
        sizeMb: fileMb,
        rounds: fileRounds,
        dataDir: BENCH_DATA_DIR,
        log: (line) => log(`${title} · ${line}`),
        profilePath,
      })),
    );
    if (profilePath) profiles.push({ contender: 'files', round: 0, path: profilePath });
  }

  if (only.includes('webhooks')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] webhook delivery`;
    // Its worker starts stopped: the first burst of events queues up, then is delivered.
    const [gather, receiver] = await Promise.all([eventsInstance(), start('receiver')]);
    log(
      `${title}: Gather ${gather.url} (pid ${gather.pid}, job queue stopped), receiver ${receiver.url} (pid ${receiver.pid})`,
    );
    const profilePath = profiled.has('ours') ? join(PROFILE_DIR, 'webhooks-delivery.cpuprofile') : undefined;
    if (profilePath) mkdirSync(PROFILE_DIR, { recursive: true });
    webhookResults.push(
      ...(await runWebhooks({
        gather,
        receiver,
        apiKey,
        requestIds: data.requestIds,
        dbUrl: db.url,
        events: webhookEvents,
        connections: options.connections,
        concurrency: benchConfig().jobConcurrency,
        poolMax: options.pool,
        lowLoad: webhookLowLoad,
        log: (line) => log(`${title} · ${line}`),
        profilePath,
      })),
    );
    if (profilePath) profiles.push({ contender: 'webhooks-delivery', round: 0, path: profilePath });
    await receiver.stop();
  }

  await eventsGather?.stop();

  if (only.includes('fanout')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] subscription fan-out`;
    const [gather, wsBare] = await Promise.all([start('ours', { label: 'ours-fanout' }), start('ws-bare')]);
    const { data: found } = (await (
      await fetch(`${gather.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'query ($id: ID!) { request(id: $id) { state } }',
          variables: { id: requestId },
        }),
      })
    ).json()) as { data: { request: { state: string } } };
    const state = found.request.state;
    const expectStatus = async (response: Response, status: number, what: string) => {
      const body = await response.text();
      if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${body.slice(0, 300)}`);
    };
    const ours: FanoutSide = {
      key: 'ours',
      label: 'Gather',
      server: gather,
      rssStartMb: NaN,
      unwatchedCpuMs: NaN,
      trigger: async (name) =>
        expectStatus(
          await fetch(`${gather.url}/requests/${requestId}`, {
            method: 'PATCH',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name }),
          }),
          200,
          'PATCH /requests/:id',
        ),
    };
    const bare: FanoutSide = {
      key: 'bare',
      label: 'bare ws',
      server: wsBare,
      rssStartMb: NaN,
      unwatchedCpuMs: NaN,
      trigger: async (name) =>
        expectStatus(
          await fetch(`${wsBare.url}/broadcast`, {
            method: 'POST',
            body: JSON.stringify(fanoutPayload(requestId, name, state)),
          }),
          204,
          'POST /broadcast',
        ),
    };
    log(
      `${title}: Gather ${gather.url} (pid ${gather.pid}, ${gather.rssMb().toFixed(0)} MB), bare ws ${wsBare.url} (pid ${wsBare.pid}, ${wsBare.rssMb().toFixed(0)} MB)`,
    );
    // Warm-up of both triggers (JIT, pools) before the first subscriber, the same count on each side:
    // events nobody watches. Gather's PATCH cost 12 ms of CPU after 70 (the earlier 30 here, the check
    // and the 40 measured below) and 9 ms after 700 (bench/README.md, "Subscription fan-out").
    for (const side of [ours, bare])
      for (let i = 0; i < fanoutOptions.warmupTriggers; i++) await side.trigger(`fanout warm-up ${i}`);
    ours.rssStartMb = gather.rssMb();
    bare.rssStartMb = wsBare.rssMb();
    log(
      `${title}: checking that both send the same: ${await checkFanout(ours, bare, apiKey, { id: requestId, state }, fanoutOptions)}`,
    );
    // After the check's events, so that the JIT has seen the whole path once more.
    for (const side of [ours, bare]) side.unwatchedCpuMs = await unwatchedCpuMs(side, 40, fanoutOptions.gapMs);
    log(
      `${title}: server CPU per event with nobody subscribed: Gather ${ours.unwatchedCpuMs.toFixed(2)} ms (the PATCH), bare ${bare.unwatchedCpuMs.toFixed(2)} ms (the POST)`,
    );
    // Every subscriber is a socket, and so a file descriptor, of the server process.
    const fds = [gather, wsBare].map((server) => server.fds());
    const capacity = Math.min(...fds.map((f) => f.limit - f.open - 64));
    const limitNote = `this machine's open-file limit per process (RLIMIT_NOFILE ${fds[0].limit}, hard, which this user cannot raise; the Gather process holds ${fds[0].open} descriptors before any subscriber)`;
    let runIndex = 0;
    for (const [i, requested] of fanoutOptions.sizes.entries()) {
      const n = Math.min(requested, capacity);
      if (n < requested)
        log(
          `${title}: N = ${requested.toLocaleString('en-US')} does not fit: ${limitNote}; measuring ${n.toLocaleString('en-US')}`,
        );
      const measured: Partial<Record<'ours' | 'bare', FanoutRun>> = {};
      for (const side of i % 2 === 0 ? [ours, bare] : [bare, ours]) {
        const profilePath = profiled.has(side.key)
          ? join(PROFILE_DIR, `fanout-${side.key === 'ours' ? '' : 'bare-'}n${n}.cpuprofile`)
          : undefined;
        if (profilePath) mkdirSync(PROFILE_DIR, { recursive: true });
        const run = await measureFanout(
          side,
          n,
          apiKey,
          fanoutOptions,
          runIndex++,
          (line) => log(`${title} · N = ${n.toLocaleString('en-US')} · ${line}`),
          profilePath,
        );
        if (profilePath)
          profiles.push({
            contender: `fanout-${side.key === 'ours' ? '' : 'bare-'}n${n}`,
            round: 0,
            path: profilePath,
          });
        measured[side.key] = run;
        const last = run.samples.map((x) => x.lastMs).sort((a, b) => a - b);
        log(
          `${title} · N = ${n.toLocaleString('en-US')} · ${side.label.padEnd(8)} last subscriber after p50 ${last[Math.ceil(last.length / 2) - 1].toFixed(1)} ms, ` +
            `max ${last[last.length - 1].toFixed(1)} ms; RSS ${run.rssMb.toFixed(0)} MB; server CPU ${run.cpuMsPerEvent.toFixed(1)} ms/event`,
        );
      }
      fanoutResults.push(
        fanoutResult(requested, measured.ours!, measured.bare!, n < requested ? limitNote : undefined),
      );
    }
    await Promise.all([gather.stop(), wsBare.stop()]);
  }

  // No Gather process: PostgreSQL's side of the event fan-out (see lib/notify.ts).
  const notifyResults: ScenarioResult[] = [];
  if (only.includes('notify')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] event commits and NOTIFY`;
    notifyResults.push(
      ...(await runNotify({
        dbUrl: db.url,
        levels: notifyLevels,
        seconds: notifySeconds,
        log: (line) => log(`${title} · ${line}`),
      })),
    );
  }

  // Last: it adds an organization with `reminders` requests, which no other group should list.
  const reminderResults: ScenarioResult[] = [];
  if (only.includes('reminders')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] timed reminders`;
    const profilePath = profiled.has('ours') ? join(PROFILE_DIR, 'reminders.cpuprofile') : undefined;
    if (profilePath) mkdirSync(PROFILE_DIR, { recursive: true });
    reminderResults.push(
      ...(await runReminders({
        dbUrl: db.url,
        count: reminderCount,
        log: (line) => log(`${title} · ${line}`),
        profilePath,
      })),
    );
    if (profilePath) profiles.push({ contender: 'reminders', round: 0, path: profilePath });
  }

  // A database of its own (see lib/scale.ts), and a Gather process on it.
  const scaleResults: ScenarioResult[] = [];
  let scaleInfo: Record<string, unknown> | null = null;
  if (only.includes('scale')) {
    groupIndex++;
    const title = `[${groupIndex}/${groupCount}] scale`;
    const opened = Date.now();
    const scale = await openScaleDatabase(db.url, scaleRequests, !args['fresh-seed'], (line) =>
      log(`${title} · ${line}`),
    );
    log(
      `${title}: ${scale.cached ? `copied in ${((Date.now() - opened) / 1000).toFixed(0)} s from the seed saved for this schema and size (seeding took ${(scale.seed.ms / 1000).toFixed(0)} s then)` : `seeded in ${(scale.seed.ms / 1000).toFixed(0)} s`}: ` +
        Object.entries(scale.seed.counts)
          .map(([table, n]) => `${n.toLocaleString('en-US')} ${table}`)
          .join(', '),
    );
    const gather = await start('ours', { label: 'ours-scale', dbUrl: scale.url });
    const loadBefore = Math.round(loadavg()[0] * 100) / 100;
    scaleResults.push(...(await measureScale(gather, scale.seed, scaleSamples, (line) => log(`${title} · ${line}`))));
    scaleInfo = {
      requests: scaleRequests,
      small: SMALL_REQUESTS,
      samples: scaleSamples,
      seeded: scale.seed.counts,
      seed_ms: scale.seed.ms,
      load_average_1m_before: loadBefore,
    };
    await gather.stop();
  }

  // Last: a PostgreSQL 15 of its own beside the embedded one, and its own servers.
  const usersResults: ScenarioResult[] = [];
  let usersInfo: Record<string, unknown> | null = null;
  if (only.includes('users')) {
    groupIndex++;
    const users = await usersGroup(`[${groupIndex}/${groupCount}] users`);
    usersResults.push(...users.results);
    usersInfo = users.info;
  }

  const ratioResults: ScenarioResult[] = comparisons
    .filter((c) => only.includes(c.group))
    .map((c) => {
      const ours = runs.get(c.ours)!;
      const base = runs.get(c.baseline)!;
      const o = summariseRuns(ours);
      const b = summariseRuns(base);
      const failures = [...ours, ...base].reduce((n, r) => n + r.failures, 0);
      const ratio = Math.round((c.of === 'rss' ? b.rss_mb / o.rss_mb : o.rps / b.rps) * 1000) / 1000;
      const cpuRatio = Math.round((b.cpu_ms_per_req / o.cpu_ms_per_req) * 1000) / 1000;
      return {
        name: c.name,
        ours: o,
        baseline: { name: c.baselineName, ...b },
        ratio,
        ...(c.of === 'rss'
          ? {
              ratio_of: 'rss' as const,
              note: 'ratio = bare RSS ÷ Gather RSS, medians over the rounds under the list load (target: Gather at most 1.5x, i.e. >= 67%)',
            }
          : {}),
        cpu_ratio: Number.isFinite(cpuRatio) ? cpuRatio : null,
        target: c.target,
        met: failures === 0 && ratio >= c.target,
        rounds: ours.map((r, i) => ({ ours_rps: Math.round(r.rps), baseline_rps: Math.round(base[i].rps) })),
        ...(failures
          ? { note: `${failures} failed requests (non-2xx, errors or unexpected bodies): not a valid measurement` }
          : {}),
      };
    });
  // The issue's order: the five ratios, then the statement count, then events and files.
  const scenarios = [
    ...ratioResults,
    ...results,
    ...fanoutResults,
    ...webhookResults,
    ...fileResults,
    ...notifyResults,
    ...reminderResults,
    ...scaleResults,
    ...usersResults,
  ];

  const report = {
    machine: machine({
      database: db.description,
      postgres: db.server.version.split(' on ')[0],
      postgres_settings: db.server.settings,
      load_generator: `autocannon ${packageVersion('autocannon')} in the runner process, ${options.connections} connections, pipelining 1`,
      fanout: {
        sizes: fanoutOptions.sizes,
        events: fanoutOptions.events,
        warmup_events: fanoutOptions.warmupEvents,
        warmup_triggers: fanoutOptions.warmupTriggers,
        gap_ms: fanoutOptions.gapMs,
        subscribers_per_load_process: fanoutOptions.perProcess,
        connect_window: fanoutOptions.connectWindow,
        client: `raw ws ${packageVersion('ws')} sockets speaking graphql-transport-ws, in load processes of their own`,
      },
      webhooks: {
        events: webhookEvents,
        patch_connections: options.connections,
        job_concurrency: benchConfig().jobConcurrency,
        low_load_events: webhookLowLoad.events,
        low_load_interval_ms: webhookLowLoad.intervalMs,
      },
      files: { size_mb: fileMb, rounds: fileRounds, data_dir: BENCH_DATA_DIR },
      notify: { connections: notifyLevels, seconds_per_side: notifySeconds },
      reminders: { count: reminderCount },
      scale: scaleInfo,
      users: usersInfo,
      mode: quick ? 'quick' : 'full',
      rounds: options.rounds,
      warmup_s: options.warmup,
      duration_s: options.duration,
      server_pool: options.pool,
      seeded: data.counts,
      seed: db.cachedSeed
        ? `copied from the seed saved for this source tree (seeding took ${data.ms} ms)`
        : `seeded in this run in ${data.ms} ms`,
      load_average_1m_at_start: loadAtStart,
    }),
    scenarios,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(resolve(ROOT, outFile), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(resolve(ROOT, outFile.replace(/\.json$/, '.md')), `${markdownTable(scenarios)}\n`);

  process.stdout.write(`\n${textTable(scenarios)}\n\n`);
  const targeted = scenarios.filter((s) => s.target !== null);
  const missed = targeted.filter((s) => !s.met);
  log(
    `${targeted.length - missed.length} of ${targeted.length} targets met${missed.length ? `; missed: ${missed.map((s) => `${s.name} (${targetText(s)})`).join('; ')}` : ''}` +
      `${scenarios.length > targeted.length ? `; ${scenarios.length - targeted.length} scenarios without a target, reported beside their baseline` : ''}`,
  );
  log(`wrote ${outFile} and ${outFile.replace(/\.json$/, '.md')}`);

  for (const profile of profiles.filter((p) => p.round === 0)) {
    const summary = summariseProfile(profile.path, 30);
    writeFileSync(profile.path.replace(/\.cpuprofile$/, '.txt'), `${summary}\n`);
    log(
      `profile of ${profile.contender}, round 1 (all rounds: ${relative(ROOT, PROFILE_DIR)}/${profile.contender}-r*.cpuprofile):\n${summary}`,
    );
  }
  for (const server of allServers) {
    const name = server.name;
    if (!server.profileDir) continue;
    await server.stop();
    // The main thread's profile (thread 0); the others are tsx's module loader.
    const file = readdirSync(server.profileDir).find((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (!file) {
      log(`no main-thread profile found in ${relative(ROOT, server.profileDir)}`);
      continue;
    }
    const path = join(server.profileDir, file);
    const summary = summariseProfile(path, 30);
    writeFileSync(join(server.profileDir, 'summary.txt'), `${summary}\n`);
    log(`${name}: whole-process profile ${relative(ROOT, path)} (summary.txt beside it):\n${summary}`);
  }
}

main()
  .then(() => cleanup())
  .then(() => {
    log('done: servers and PostgreSQL stopped');
    process.exit(0);
  })
  .catch(async (err) => {
    process.stderr.write(`\nbenchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await cleanup();
    process.exit(1);
  });
