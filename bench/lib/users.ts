import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from 'pg';
import type { CannonResult, CannonRun } from './cannon-child';
import { PEER_LIST_QUERY, USERS_LIST_QUERY } from './documents';
import { exec, nodeBin, startGather, type OutsideProcess } from './gather-process';
import type { RunFigures } from './load';
import { startPg15, type Pg15 } from './pg15';
import { queueIdle } from './queue-idle';
import { median, progressLine, summarise, type ScenarioResult } from './report';
import { ROOT, startHelper, startServer, type Helper } from './servers';

// The `users` group (issue 15): Gather and PostGraphile 4 and 5 measured as users comparing them would.
// PostgreSQL 15 from Debian (lib/pg15.ts), Gather started by `npm start` (lib/gather-process.ts), the
// data made through Gather's own POST /requests, autocannon in processes of its own (lib/cannon-child.ts),
// PostGraphile 5 on Node 22 from a cache directory. Per round, servers in rotated order:
//   (a) fresh processes, the list only;
//   (b) a fresh Gather that first serves `creates` POST /requests (5 items, 2 recipients) and
//       `patches` PATCH /requests/:id, then the list (the PostGraphiles, which serve no writes, again);
//   (c) the list while another autocannon process sends creates and patches to Gather at `writeRate`
//       per second (Gather's process (b) serves both; the PostGraphiles' list runs beside it).
// See bench/README.md, "As users compare them".

export type UsersOptions = {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  pool: number;
  /** Requests created through Gather before the rounds, and again before each phase (b). */
  creates: number;
  patches: number;
  /** Writes per second during phase (c), over 2 connections. */
  writeRate: number;
  /** Node line of the Gather process: '20' (this machine's), '22' or '24' (as .ci/run installs them). */
  gatherNode: string;
  /** Phases to run (default a, b, c). */
  phases: string[];
  log: (line: string) => void;
};

/**
 * Gather's list throughput against each PostGraphile, on the phases whose Gather process also served the
 * writes: (b) after them, (c) while they go on. Phase (a), fresh processes, is reported without a target.
 */
const USERS_TARGETS = { pg4: 1.5, pg5: 1.3 } as const;
const USERS_TARGET_PHASES = ['b', 'c'];

const ADMIN_KEY = 'gather_bench_users_admin_key_0123456789abcdef';
const PG5_DIR =
  process.env.BENCH_PG5_DIR ?? join(process.env.HOME ?? '/root', '.cache', 'gather-bench', 'postgraphile5');
const LOG_DIR = join(ROOT, '.data', 'bench-users');

/** PostGraphile 5's spelling of the same page (its amber preset: `rowId` is the column, `id` the node id). */
export const PG5_LIST_QUERY = `query Peer5RequestList($organizationId: UUID!, $first: Int!) {
  allRequests(first: $first, orderBy: [CREATED_AT_DESC, ROW_ID_DESC], condition: { organizationId: $organizationId, deletedAt: null }) {
    nodes {
      rowId
      name
      state
      dueDate
      createdAt
      updatedAt
      appUserByOwnerId {
        rowId
        email
        firstName
        lastName
      }
      requestItemsByRequestId(orderBy: [POSITION_ASC], condition: { deletedAt: null }) {
        nodes {
          rowId
          type
          name
          description
          required
          status
        }
      }
      recipientsByRequestId(orderBy: [POSITION_ASC]) {
        nodes {
          rowId
          firstName
          lastName
          email
          phone
          authMethod
        }
      }
    }
  }
}`;

/** Installs the newest PostGraphile 5 into the cache with Node 22's npm, once (BENCH_PG5_UPDATE=1: again). */
async function postgraphile5(node22: string, log: (line: string) => void): Promise<string> {
  const manifest = join(PG5_DIR, 'node_modules', 'postgraphile', 'package.json');
  if (!existsSync(manifest) || process.env.BENCH_PG5_UPDATE === '1') {
    log(`installing postgraphile@^5 into ${PG5_DIR} with Node 22's npm`);
    await exec(
      'npm',
      [
        'install',
        '--prefix',
        PG5_DIR,
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--loglevel=error',
        'postgraphile@^5',
      ],
      { ...process.env, PATH: `${node22}:${process.env.PATH}` },
    );
  }
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

type Side = {
  key: 'gather' | 'pg4' | 'pg5';
  label: string;
  body: string;
  prefix: string;
};

type Measured = { url: string; cpuSeconds(): number; rssMb(): number };
type Figures = RunFigures & { load: number; writes?: Omit<CannonResult, 'created'> };

/** Runs one autocannon job in a helper process. */
async function cannon(helper: Helper, run: Omit<CannonRun, 'type'>, timeoutMs: number): Promise<CannonResult> {
  helper.send({ ...run, type: 'run' });
  const answer = await helper.next<CannonResult | { type: 'failed'; error: string }>('done', timeoutMs);
  return answer as CannonResult;
}

async function startCannon(): Promise<Helper> {
  const helper = startHelper('lib/cannon-child.ts');
  await helper.next('ready', 30_000);
  return helper;
}

export async function runUsers(
  options: UsersOptions,
): Promise<{ results: ScenarioResult[]; info: Record<string, unknown> }> {
  const { log } = options;
  const node22 = await nodeBin('22', log);
  const gatherNode = options.gatherNode === '20' ? undefined : await nodeBin(options.gatherNode, log);
  const pg5Version = await postgraphile5(node22, log);
  const pg4Version = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', 'postgraphile', 'package.json'), 'utf8'),
  ).version;
  let pg: Pg15 | undefined;
  const started: { stop(): Promise<void> }[] = [];
  const helpers: Helper[] = [];
  const stopAll = async () => {
    await Promise.allSettled(started.splice(0).map((s) => s.stop()));
  };
  try {
    pg = await startPg15(log);
    await pg.recreate();
    log(`users: ${pg.description}; ${pg.version.split(' on ')[0]}`);
    const [listCannon, writeCannon] = await Promise.all([startCannon(), startCannon()]);
    helpers.push(listCannon, writeCannon);
    let gatherCount = 0;
    const gather = async (what: string) => {
      const server = await startGather({
        label: `gather-${what}`,
        databaseUrl: pg!.url,
        apiKey: ADMIN_KEY,
        logFile: join(LOG_DIR, `gather-${++gatherCount}-${what}.log`),
        node: gatherNode,
      });
      started.push(server);
      return server;
    };
    const stop = async (server: { stop(): Promise<void> }) => {
      started.splice(started.indexOf(server), 1);
      await server.stop();
    };
    // After the writes, Gather's job queue does what they left to its consumers first: otherwise whichever server is
    // measured first shares the machine with that work.
    const settle = async () => {
      const client = new Client({ connectionString: pg!.adminUrl.replace(/\/postgres$/, '/gather_users') });
      await client.connect();
      try {
        await queueIdle(client);
        await client.query('vacuum (analyze)');
        await client.query('checkpoint');
      } finally {
        await client.end();
      }
    };
    const writes = async (server: OutsideProcess) => {
      const t = Date.now();
      const created = await cannon(
        writeCannon,
        {
          url: server.url,
          apiKey: ADMIN_KEY,
          kind: 'create',
          connections: options.connections,
          amount: options.creates,
          tag: 'c',
        },
        300_000,
      );
      const patched = options.patches
        ? await cannon(
            writeCannon,
            {
              url: server.url,
              apiKey: ADMIN_KEY,
              kind: 'patch',
              connections: options.connections,
              amount: options.patches,
              ids: created.created,
              tag: 'p',
            },
            300_000,
          )
        : undefined;
      if (created.failures || patched?.failures || created.created.length !== options.creates)
        throw new Error(
          `users: writes through Gather failed: ${created.failures} creates, ${patched?.failures} patches failed`,
        );
      await settle();
      return { ids: created.created, ms: Date.now() - t, createRps: created.rps, patchRps: patched?.rps ?? 0 };
    };

    // The data: `creates` requests through a Gather process's own API, then that process goes.
    const setup = await gather('setup');
    const whoami = (await (
      await fetch(`${setup.url}/whoami`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json()) as {
      organization_id: string;
    };
    const organizationId = whoami.organization_id;
    const seeded = await writes(setup);
    let patchIds = seeded.ids;
    log(
      `users: ${options.creates} requests created and ${options.patches} patched through Gather's API in ${(seeded.ms / 1000).toFixed(1)} s (${seeded.createRps.toFixed(0)} creates/s)`,
    );
    await stop(setup);

    const graphql = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });
    const sides: Side[] = [
      {
        key: 'gather',
        label: `Gather (npm start${gatherNode ? `, Node ${options.gatherNode}` : ''})`,
        body: graphql(USERS_LIST_QUERY, { first: 20 }),
        prefix: '{"data":{"requests":{"nodes":[{',
      },
      {
        key: 'pg4',
        label: `PostGraphile ${pg4Version}`,
        body: graphql(PEER_LIST_QUERY, { organizationId, first: 20 }),
        prefix: '{"data":{"allRequests":{"nodes":[{',
      },
      {
        key: 'pg5',
        label: `PostGraphile ${pg5Version} (Node 22)`,
        body: graphql(PG5_LIST_QUERY, { organizationId, first: 20 }),
        prefix: '{"data":{"allRequests":{"nodes":[{',
      },
    ];
    const startPeers = async () => {
      const [pg4, pg5] = await Promise.all([
        startServer('postgraphile', { dbUrl: pg!.url, poolMax: options.pool, cpuProf: false, label: 'users-pg4' }),
        startServer('postgraphile5', {
          dbUrl: pg!.url,
          poolMax: options.pool,
          cpuProf: false,
          label: 'users-pg5',
          node: join(node22, 'node'),
          env: { BENCH_PG5_DIR: PG5_DIR },
        }),
      ]);
      started.push(pg4, pg5);
      return { pg4, pg5 };
    };

    const measureList = async (side: Side, server: Measured, concurrentWrites?: OutsideProcess): Promise<Figures> => {
      const read = {
        url: server.url,
        apiKey: ADMIN_KEY,
        kind: 'read' as const,
        connections: options.connections,
        path: '/graphql',
        body: side.body,
        prefix: side.prefix,
      };
      const writing = concurrentWrites
        ? cannon(
            writeCannon,
            {
              url: concurrentWrites.url,
              apiKey: ADMIN_KEY,
              kind: 'mixed',
              connections: 2,
              duration: options.warmup + options.duration + 1,
              rate: options.writeRate,
              ids: patchIds,
              tag: 'm',
            },
            (options.warmup + options.duration) * 1000 + 120_000,
          )
        : undefined;
      if (options.warmup > 0)
        await cannon(listCannon, { ...read, duration: options.warmup }, options.warmup * 1000 + 60_000);
      const load = loadavg()[0];
      let rss = server.rssMb();
      const sampler = setInterval(() => (rss = Math.max(rss, server.rssMb())), 200);
      const cpu0 = server.cpuSeconds();
      const t0 = process.hrtime.bigint();
      let result: CannonResult;
      try {
        result = await cannon(listCannon, { ...read, duration: options.duration }, options.duration * 1000 + 60_000);
      } finally {
        clearInterval(sampler);
      }
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu = server.cpuSeconds() - cpu0;
      const written = writing ? await writing : undefined;
      if (written) patchIds = [...patchIds, ...written.created].slice(-2000);
      return {
        rps: result.rps,
        p50_ms: result.p50_ms,
        p99_ms: result.p99_ms,
        rss_mb: Math.max(rss, server.rssMb()),
        cpu_pct: (cpu / seconds) * 100,
        cpu_ms_per_req: result.requests ? (cpu * 1000) / result.requests : NaN,
        requests: result.requests,
        failures: result.failures + (written?.failures ?? 0),
        load: Math.round(load * 100) / 100,
        ...(written ? { writes: { ...written, created: undefined } as unknown as Omit<CannonResult, 'created'> } : {}),
      };
    };

    const runs = new Map<string, Figures[]>();
    const record = (phase: string, side: Side, figures: Figures) => {
      const key = `${phase}:${side.key}`;
      if (!runs.has(key)) runs.set(key, []);
      runs.get(key)!.push(figures);
      const w = figures.writes;
      log(
        `users · (${phase}) ${side.label.padEnd(30)} ${progressLine(figures)}  load ${figures.load.toFixed(2)}` +
          (w ? `  writes ${w.rps.toFixed(0)}/s p99 ${w.p99_ms} ms` : ''),
      );
    };

    const checkSame = async (servers: Record<Side['key'], Measured>) => {
      const answers = await Promise.all(
        sides.map(async (side) => {
          const response = await fetch(`${servers[side.key].url}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
            body: side.body,
          });
          const json = (await response.json()) as any;
          if (json.errors || !json.data)
            throw new Error(`users: ${side.label} answered ${JSON.stringify(json).slice(0, 600)}`);
          return json.data;
        }),
      );
      const id = (r: any) => r.id ?? r.rowId;
      const normal = (nodes: any[], peer: boolean) =>
        nodes.map((r) => ({
          id: id(r),
          name: r.name,
          state: r.state,
          dueDate: r.dueDate === null ? null : new Date(r.dueDate).toISOString(),
          createdAt: new Date(r.createdAt).toISOString(),
          owner: ((o: any) => ({ id: id(o), email: o.email, firstName: o.firstName, lastName: o.lastName }))(
            peer ? r.appUserByOwnerId : r.owner,
          ),
          items: (peer ? r.requestItemsByRequestId.nodes : r.items).map((i: any) => ({
            id: id(i),
            kind: peer ? i.type : i.kind,
            name: i.name,
            description: i.description,
            required: i.required,
            status: i.status,
          })),
          recipients: (peer ? r.recipientsByRequestId.nodes : r.recipients).map((p: any) => ({
            id: id(p),
            firstName: p.firstName,
            lastName: p.lastName,
            email: p.email,
            phone: p.phone,
          })),
        }));
      const [g, p4, p5] = [
        normal(answers[0].requests.nodes, false),
        normal(answers[1].allRequests.nodes, true),
        normal(answers[2].allRequests.nodes, true),
      ];
      for (const [name, other] of [
        ['PostGraphile 4', p4],
        ['PostGraphile 5', p5],
      ] as const)
        if (!isDeepStrictEqual(g, other))
          throw new Error(
            `users: Gather and ${name} answer different pages:\n${JSON.stringify(g).slice(0, 600)}\n${JSON.stringify(other).slice(0, 600)}`,
          );
      return `the same ${g.length} requests, owners, items and recipients from Gather, PostGraphile 4 and 5`;
    };

    for (let round = 0; round < options.rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length]);
      const peers = await startPeers();
      if (options.phases.includes('a')) {
        const fresh = await gather('a');
        const servers = { gather: fresh, pg4: peers.pg4, pg5: peers.pg5 };
        if (round === 0) log(`users: ${await checkSame(servers)}`);
        for (const side of order) record('a', side, await measureList(side, servers[side.key]));
        await stop(fresh);
      }
      if (options.phases.includes('b') || options.phases.includes('c')) {
        const written = await gather('b');
        const w = await writes(written);
        patchIds = w.ids;
        log(
          `users · round ${round + 1}: ${options.creates} creates and ${options.patches} patches through the measured Gather process (${w.createRps.toFixed(0)} creates/s), then the list`,
        );
        const servers = { gather: written, pg4: peers.pg4, pg5: peers.pg5 };
        if (options.phases.includes('b'))
          for (const side of order) record('b', side, await measureList(side, servers[side.key]));
        if (options.phases.includes('c'))
          for (const side of order) record('c', side, await measureList(side, servers[side.key], written));
        await stop(written);
      }
      await stopAll();
    }

    const PHASES: Record<string, string> = {
      a: 'fresh processes, the list only',
      b: `after ${options.creates} POST /requests and ${options.patches} PATCHes through the measured Gather process`,
      c: `while creates and PATCHes go to Gather at ${options.writeRate}/s from another autocannon process`,
    };
    const results: ScenarioResult[] = [];
    const summary = (list: Figures[]) => summarise(list);
    for (const phase of options.phases) {
      const ours = runs.get(`${phase}:gather`)!;
      const writesFigures = ours.map((f) => f.writes).filter(Boolean) as Omit<CannonResult, 'created'>[];
      for (const base of ['pg4', 'pg5'] as const) {
        const target = USERS_TARGET_PHASES.includes(phase) ? USERS_TARGETS[base] : null;
        const baseline = runs.get(`${phase}:${base}`)!;
        const o = summary(ours);
        const b = summary(baseline);
        const failures = [...ours, ...baseline].reduce((n, r) => n + r.failures, 0);
        const ratio = Math.round((o.rps / b.rps) * 1000) / 1000;
        const side = sides.find((s) => s.key === base)!;
        const baseWrites = baseline.map((f) => f.writes).filter(Boolean) as Omit<CannonResult, 'created'>[];
        results.push({
          name: `Users (${phase}): list 20 requests, ${PHASES[phase]} (PostgreSQL 15, npm start)`,
          ours: {
            ...o,
            ...(writesFigures.length
              ? {
                  write_rps: Math.round(median(writesFigures.map((x) => x.rps)) * 10) / 10,
                  write_p99_ms: median(writesFigures.map((x) => x.p99_ms)),
                }
              : {}),
          },
          baseline: {
            name: `${side.label}, own process, same database`,
            ...b,
            ...(baseWrites.length
              ? {
                  write_rps: Math.round(median(baseWrites.map((x) => x.rps)) * 10) / 10,
                  write_p99_ms: median(baseWrites.map((x) => x.p99_ms)),
                }
              : {}),
          },
          ratio,
          cpu_ratio: Math.round((b.cpu_ms_per_req / o.cpu_ms_per_req) * 1000) / 1000,
          target,
          met: target === null ? null : failures === 0 && ratio >= target,
          rounds: ours.map((r, i) => ({ ours_rps: Math.round(r.rps), baseline_rps: Math.round(baseline[i].rps) })),
          load_average_1m: ours.map((r, i) => [r.load, baseline[i].load]),
          ...(failures
            ? { note: `${failures} failed requests: not a valid measurement` }
            : target === null
              ? {
                  note: 'no target: the targets are on the list of the process that also served the writes, (b) and (c)',
                }
              : {}),
        });
      }
    }
    if (runs.has('a:gather') && runs.has('b:gather')) {
      const a = summary(runs.get('a:gather')!);
      const b = summary(runs.get('b:gather')!);
      results.push({
        name: 'Users: Gather list after writes (b) against a fresh process (a)',
        ours: b,
        baseline: { name: 'the same list on a fresh Gather process (a)', ...a },
        ratio: Math.round((b.rps / a.rps) * 1000) / 1000,
        cpu_ratio: Math.round((a.cpu_ms_per_req / b.cpu_ms_per_req) * 1000) / 1000,
        target: null,
        met: null,
      });
    }
    return {
      results,
      info: {
        postgres: pg.version.split(' on ')[0],
        database: pg.description,
        gather: `npm start (node --import tsx src/main.ts), NODE_ENV=production, default logging to a file, RATE_LIMIT_API_KEY=0, Node ${gatherNode ? options.gatherNode : process.versions.node}`,
        postgraphile4: pg4Version,
        postgraphile5: `${pg5Version} on Node 22 (${PG5_DIR})`,
        creates: options.creates,
        patches: options.patches,
        write_rate: options.writeRate,
        load_generator: `autocannon in processes of their own, ${options.connections} connections (list), 2 (writes)`,
        rounds: options.rounds,
        warmup_s: options.warmup,
        duration_s: options.duration,
        pool: options.pool,
      },
    };
  } finally {
    await stopAll();
    await Promise.allSettled(helpers.map((h) => h.stop()));
    await pg?.stop();
  }
}
