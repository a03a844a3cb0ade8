import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/kernel/db/embedded';
import { meta, tusRequest, type Answer } from '../test/support/tus-http';
import { killAllServers, ROOT, startHelper, startServer, type ServerProcess } from './lib/servers';

// What an attack on resumable (tus) uploads costs the server and another client, on Gather as deployed
// (bench/servers/production.ts: production mode, every limit at its default, rate limits on):
// (a) `--creates` (150) concurrent creates on one recipient link: how many are taken (the per-link limit is 20);
// (b) `--deferred` (3) creates with `Upload-Defer-Length: 1`, then `--deferred-mib` (256) MiB PATCHed into each at
//     once, and one MiB more into the first: the bytes left on disk;
// (c) `--per-link` (20) creates declaring MAX_UPLOAD_BYTES (256 MiB by default) on each of `--links` (10) links of one
//     organization, each link's one after another, the links at once: the declared bytes taken against the
//     organization's limit (UNFINISHED_UPLOAD_BYTES_ORGANIZATION, 10 GiB by default).
// Each attack on a fresh server with an empty DATA_DIR/uploads, while another organization's client (a process of
// its own) asks `/healthz` every 10 ms and GraphQL `{ viewer { email } }` every 25 ms: the answers, declared bytes
// taken, bytes and files under DATA_DIR/uploads, `partial_upload` rows (the table of the fix; main has none), the
// server's RSS before and at its peak, and the other client's p50/p99/max. Each contender has its own database on
// one embedded PostgreSQL, migrated by its own code: with `--against DIR` (a worktree of main) first, then this
// checkout.

const { values: args } = parseArgs({
  options: {
    help: { type: 'boolean', short: 'h' },
    against: { type: 'string' },
    port: { type: 'string', default: '54471' },
    'data-dir': { type: 'string', default: '/tmp/gather-tus-attack' },
    creates: { type: 'string', default: '150' },
    deferred: { type: 'string', default: '3' },
    'deferred-mib': { type: 'string', default: '256' },
    links: { type: 'string', default: '10' },
    'per-link': { type: 'string', default: '20' },
    only: { type: 'string' },
    setup: { type: 'boolean' },
  },
});

const USAGE = `Usage: npx tsx bench/tus-attack.ts [--against DIR] [--port N] [--data-dir DIR] [--only a,b,c]
         [--creates N] [--deferred N] [--deferred-mib N] [--links N] [--per-link N]

What tus upload attacks cost Gather (production settings) and another client meanwhile:
  a  --creates (150) concurrent creates on one link: how many are taken
  b  --deferred (3) creates of deferred length, --deferred-mib (256) MiB PATCHed into each: bytes stored
  c  --per-link (20) creates of 256 MiB declared on each of --links (10) links of one organization
--against DIR runs another checkout (a worktree of main) first; each contender gets its own database on an
embedded PostgreSQL (--port, default 54471, under .data/tus-attack-pg) and its own DATA_DIR under --data-dir.
Writes bench/results/tus-attack.json and prints a Markdown table.`;

const MiB = 2 ** 20;
/** MAX_UPLOAD_BYTES's default, the largest Upload-Length tus takes (both versions). */
const MAX_UPLOAD = 256 * MiB;
const ATTACKER_KEY = `gth_${'a'.repeat(40)}`;
const OTHER_KEY = `gth_${'b'.repeat(40)}`;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * `--setup`, in a process of its own: migrates BENCH_DB_URL with BENCH_ROOT's code (its own migrations), and makes
 * the attacker's and the other client's organizations with known keys.
 */
async function setup() {
  const root = process.env.BENCH_ROOT!;
  const url = process.env.BENCH_DB_URL!;
  const { createOrm, migrate } = await import(join(root, 'src/kernel/db/orm.ts'));
  const { DATA_MODEL } = await import(join(root, 'src/modules/index.ts'));
  const { Db } = await import(join(root, 'src/kernel/db/db.ts'));
  const { createOrganization } = await import(join(root, 'src/modules/identity/identity.service.ts'));
  const orm = await createOrm({ url, ...DATA_MODEL, poolMax: 1 });
  await migrate(orm);
  const db = new Db({ url, poolMax: 1, metadata: orm.getMetadata() });
  await createOrganization(db, { name: 'Attacker', adminEmail: 'admin@attacker.example', apiKey: ATTACKER_KEY });
  await createOrganization(db, { name: 'Other', adminEmail: 'admin@other.example', apiKey: OTHER_KEY });
  await db.close();
  await orm.close();
}

type Link = { token: string; auth: Record<string, string>; item: string };

/** A request of the attacker's organization with one upload item, and its recipient's session. */
async function newLink(server: ServerProcess, n: number): Promise<Link> {
  const created = await fetch(`${server.url}/requests`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ATTACKER_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `Upload ${n}`,
      items: [{ type: 'UPLOAD', name: 'W-2', required: true }],
      recipients: [{ first_name: 'Ana', email: `ana${n}@example.com`, auth_method: { type: 'NONE' } }],
    }),
  });
  if (created.status !== 200) throw new Error(`POST /requests: ${created.status} ${await created.text()}`);
  const request = (await created.json()) as { recipients: { request_link: string }[]; items: { id: string }[] };
  const token = new URL(request.recipients[0].request_link).pathname.split('/')[2];
  const session = await fetch(`${server.url}/r/${token}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (session.status !== 200) throw new Error(`POST /r/{token}/api/session: ${session.status} ${await session.text()}`);
  const { session_token } = (await session.json()) as { session_token: string };
  return { token, auth: { authorization: `Bearer ${session_token}` }, item: request.items[0].id };
}

const create = (server: ServerProcess, link: Link, length: number | 'deferred', filename: string) =>
  tusRequest(server.url, 'POST', `/r/${link.token}/api/uploads`, {
    ...link.auth,
    ...(length === 'deferred' ? { 'upload-defer-length': '1' } : { 'upload-length': String(length) }),
    'upload-metadata': meta({ item_id: link.item, filename, filetype: 'application/octet-stream' }),
  });

/** `201 × 24, 429 × 126 ("At most 20 …")`: each status, its count and its first answer's text. */
function tally(answers: Answer[]): string {
  const by = new Map<number, { count: number; body: string }>();
  for (const a of answers) {
    const seen = by.get(a.status) ?? { count: 0, body: a.body.trim().slice(0, 90) };
    seen.count++;
    by.set(a.status, seen);
  }
  return [...by]
    .sort(([a], [b]) => a - b)
    .map(([status, { count, body }]) => `${count} × ${status}${status >= 400 && body ? ` ("${body}")` : ''}`)
    .join(', ');
}

type Latency = { count: number; p50: number; p99: number; max: number };
const latency = (waits: number[]): Latency => {
  const sorted = [...waits].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? NaN) };
};

/**
 * The other client, in a process of its own (TUS_ATTACK_ROLE=bystander), so that the attack's own work in this
 * process (150 connections, 768 MiB sent) does not delay it: it asks /healthz every 10 ms and GraphQL
 * `{ viewer { email } }` every 25 ms from its start until told to stop, then answers its waits.
 */
async function bystander() {
  const url = process.env.BENCH_URL!;
  let stopping = false;
  const poll = async (every: number, ask: () => Promise<Response>) => {
    const waits: number[] = [];
    while (!stopping) {
      const asked = performance.now();
      const response = await ask();
      await response.text();
      if (response.status !== 200) throw new Error(`the other client was answered ${response.status}`);
      waits.push(performance.now() - asked);
      await sleep(Math.max(0, every - (performance.now() - asked)));
    }
    return waits;
  };
  const health = poll(10, () => fetch(`${url}/healthz`));
  const graphql = poll(25, () =>
    fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OTHER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    }),
  );
  await sleep(200);
  process.send!({ type: 'polling' });
  await new Promise<void>((done) => process.on('message', (m: { type?: string }) => m?.type === 'stop' && done()));
  stopping = true;
  const [healthWaits, graphqlWaits] = await Promise.all([health, graphql]);
  process.send!({ type: 'waits', healthz: latency(healthWaits), graphql: latency(graphqlWaits) });
  process.once('disconnect', () => process.exit(0));
}

/**
 * Runs `attack` while the other client (`bystander`) asks the server, and the server's RSS is sampled every 20 ms;
 * the other client goes on a second after the attack ends.
 */
async function measure<T>(server: ServerProcess, attack: () => Promise<T>) {
  const other = startHelper('tus-attack.ts', { TUS_ATTACK_ROLE: 'bystander', BENCH_URL: server.url });
  try {
    await other.next('polling', 60_000);
    const rssBefore = server.rssMb();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, server.rssMb())), 20);
    const started = performance.now();
    const result = await attack();
    const seconds = (performance.now() - started) / 1000;
    await sleep(1000);
    clearInterval(sampler);
    const waits = other.next<{ healthz: Latency; graphql: Latency }>('waits', 30_000);
    other.send({ type: 'stop' });
    const { healthz, graphql } = await waits;
    return {
      result,
      seconds,
      rss: { before: Math.round(rssBefore), peak: Math.round(Math.max(rssPeak, server.rssMb())) },
      healthz,
      graphql,
    };
  } finally {
    await other.stop();
  }
}

/** Files under DATA_DIR/uploads: uploads (their bytes) and descriptions (`.json`). */
function uploadsOnDisk(dataDir: string) {
  const dir = join(dataDir, 'uploads');
  let uploads = 0;
  let descriptions = 0;
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    const stat = statSync(join(dir, name));
    if (name.endsWith('.json')) descriptions++;
    else uploads++;
    bytes += stat.size;
  }
  return { uploads, descriptions, bytes };
}

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

type Attack = {
  name: string;
  run: (server: ServerProcess) => Promise<{ answers: string; declared: number; notes?: string }>;
};

/** The bytes PATCHed into each upload of deferred length, made once, before any measurement. */
let PATCH_DATA = Buffer.alloc(0);

const ATTACKS: Record<'a' | 'b' | 'c', Attack> = {
  a: {
    name: `(a) ${args.creates} concurrent creates on one link, 1 KiB each`,
    async run(server) {
      const link = await newLink(server, 1);
      const answers = await Promise.all(
        Array.from({ length: Number(args.creates) }, (_, i) => create(server, link, 1024, `${i}.bin`)),
      );
      const taken = answers.filter((a) => a.status === 201).length;
      return { answers: tally(answers), declared: taken * 1024 };
    },
  },
  b: {
    name: `(b) ${args.deferred} creates with Upload-Defer-Length, ${args['deferred-mib']} MiB PATCHed into each, 1 MiB more`,
    async run(server) {
      const link = await newLink(server, 2);
      const made = await Promise.all(
        Array.from({ length: Number(args.deferred) }, (_, i) => create(server, link, 'deferred', `deferred-${i}.bin`)),
      );
      const locations = made.filter((a) => a.status === 201).map((a) => String(a.headers.location));
      const data = PATCH_DATA;
      const patch = (location: string, offset: number, body: Buffer) =>
        tusRequest(
          server.url,
          'PATCH',
          location,
          { ...link.auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
          body,
        );
      const patches = await Promise.all(locations.map((location) => patch(location, 0, data)));
      const more = locations.length ? [await patch(locations[0], data.length, Buffer.alloc(MiB, 0x42))] : [];
      return {
        answers: `creates: ${tally(made)}; PATCHes: ${tally(patches) || 'none'}; 1 MiB more: ${tally(more) || 'none'}`,
        declared: 0,
      };
    },
  },
  c: {
    name: `(c) ${args['per-link']} creates of 256 MiB declared on each of ${args.links} links of one organization`,
    async run(server) {
      const links = await Promise.all(Array.from({ length: Number(args.links) }, (_, i) => newLink(server, 100 + i)));
      const answers = (
        await Promise.all(
          links.map(async (link) => {
            const mine: Answer[] = [];
            for (let i = 0; i < Number(args['per-link']); i++)
              mine.push(await create(server, link, MAX_UPLOAD, `${i}.bin`));
            return mine;
          }),
        )
      ).flat();
      const taken = answers.filter((a) => a.status === 201).length;
      return { answers: tally(answers), declared: taken * MAX_UPLOAD };
    },
  },
};

/** A fresh database of that name on `pg`, migrated by `root`'s code, with the two organizations. */
async function freshDatabase(adminUrl: string, name: string, root: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--setup'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ROOT: root, BENCH_DB_URL: url.toString() },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`setup of ${name} exited with ${code}`))));
  });
  return url.toString();
}

async function main() {
  if (args.help) {
    console.log(USAGE);
    return;
  }
  if (args.setup) return setup();
  if (process.env.TUS_ATTACK_ROLE === 'bystander') return bystander();
  const only = (args.only ?? 'a,b,c').split(',') as Array<keyof typeof ATTACKS>;
  if (only.includes('b')) PATCH_DATA = Buffer.alloc(Number(args['deferred-mib']) * MiB, 0x41);
  const dir = join(ROOT, '.data', 'tus-attack-pg');
  mkdirSync(dir, { recursive: true });
  const pg = await startEmbeddedPostgres({ dir, port: Number(args.port), database: 'gather_tus' });
  const contenders = [
    ...(args.against ? [{ label: 'before', root: resolve(args.against) }] : []),
    { label: 'after', root: ROOT },
  ].map((c) => ({
    ...c,
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: c.root, encoding: 'utf8' }).trim(),
  }));
  const rows: Record<string, unknown>[] = [];
  const load = () => loadavg()[0].toFixed(2);
  try {
    for (const { label, root, commit } of contenders) {
      const url = await freshDatabase(pg.url, `gather_tus_${label}`, root);
      const db = new Client({ connectionString: url });
      await db.connect();
      const hasTable = (await db.query(`select to_regclass('partial_upload') as t`)).rows[0].t !== null;
      const dataDir = join(args['data-dir'], label);
      try {
        for (const key of only) {
          const attack = ATTACKS[key];
          rmSync(dataDir, { recursive: true, force: true });
          mkdirSync(dataDir, { recursive: true });
          await db.query('truncate rate_limit_counter');
          if (hasTable) await db.query('truncate partial_upload');
          const server = await startServer('production', {
            dbUrl: url,
            poolMax: 10,
            cpuProf: false,
            env: { BENCH_ROOT: root, BENCH_DATA_DIR: dataDir },
            label,
          });
          try {
            // Warm: the other client's query and one upload's create and cancel, so that no attack pays for a
            // cold start.
            const warm = await newLink(server, 0);
            const made = await create(server, warm, 10, 'warm.bin');
            await tusRequest(server.url, 'DELETE', String(made.headers.location), warm.auth);
            await measure(server, () => sleep(300));
            const loadBefore = load();
            const m = await measure(server, () => attack.run(server));
            const disk = uploadsOnDisk(dataDir);
            const partialRows = hasTable
              ? Number((await db.query('select count(*)::int as n from partial_upload')).rows[0].n)
              : null;
            const row = {
              gather: label,
              commit,
              attack: attack.name,
              answers: m.result.answers,
              declared_bytes_taken: m.result.declared,
              stored: disk,
              partial_upload_rows: partialRows,
              seconds: Number(m.seconds.toFixed(2)),
              rss_mb: m.rss,
              healthz_ms: m.healthz,
              graphql_ms: m.graphql,
              load_1min: `${loadBefore} → ${load()}`,
            };
            console.log(JSON.stringify(row));
            rows.push(row);
          } finally {
            await server.stop();
          }
        }
      } finally {
        await db.end();
      }
    }
  } finally {
    await pg.stop();
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'tus-attack.json'), JSON.stringify(rows, null, 2));
  const lat = (l: Latency) => `${l.p50} / ${l.p99} / ${l.max} ms (${l.count})`;
  console.log(
    [
      '',
      '| Gather | attack | answers | declared bytes taken | under DATA_DIR/uploads | `partial_upload` rows | time | RSS before → peak | `/healthz` p50 / p99 / max | `{ viewer { email } }` p50 / p99 / max | load (1 min) |',
      '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r: any) =>
        [
          '',
          `${r.gather} (${r.commit})`,
          r.attack,
          r.answers,
          r.declared_bytes_taken >= 2 ** 30 ? gib(r.declared_bytes_taken) : `${r.declared_bytes_taken / 1024} KiB`,
          `${mib(r.stored.bytes)} in ${r.stored.uploads} uploads (+${r.stored.descriptions} .json)`,
          r.partial_upload_rows ?? 'no table',
          `${r.seconds} s`,
          `${r.rss_mb.before} → ${r.rss_mb.peak} MB`,
          lat(r.healthz_ms),
          lat(r.graphql_ms),
          r.load_1min,
          '',
        ]
          .join(' | ')
          .trim(),
      ),
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(err);
  killAllServers();
  process.exit(1);
});
