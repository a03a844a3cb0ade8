import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { buildASTSchema, parse, validate } from 'graphql';
import { startEmbeddedPostgres } from '../src/kernel/db/embedded';
import { Db } from '../src/kernel/db/db';
import { createOrm, migrate } from '../src/kernel/db/orm';
import { loadSdl } from '../src/kernel/graphql/sdl';
import { MAX_BATCH_OPERATIONS, MAX_QUERY_COST } from '../src/kernel/limits';
import { DATA_MODEL } from '../src/modules';
import { createOrganization } from '../src/modules/identity/identity.service';
import { killAllServers, ROOT, startServer, type ServerProcess } from './lib/servers';

// What two attacks on the GraphQL and HTTP limits cost the server, and another client meanwhile,
// on Gather as deployed (bench/servers/production.ts: production mode, default limits, rate limits on):
// - batch: one POST /graphql of MAX_BATCH_OPERATIONS operations, each as many aliases of
//   `requests(first: 100) { nodes { … items … recipients … } }` (a fragment) as pass the cost limit of one
//   operation, over 100 requests; then three such batches at once; then a batch of operations of 15
//   aliases each (the alias limit of one operation), and one operation of 15 aliases. Peak RSS, each batch's status and time, and the
//   latency of another organization's `{ viewer { email } }` sent every 20 ms meanwhile.
// - credentials: 2,000 requests from one address, 20 at a time, each with a new random API key or to a
//   random recipient link: their statuses, the rate at which they were answered, the rate-limit
//   counter rows they left, and the other client's latency.
// Each contender runs alone on one embedded PostgreSQL: this checkout, and with `--against DIR` another
// (a worktree of main) first. Usage: npx tsx bench/batch-attack.ts [--against DIR] [--port N]

const { values: args } = parseArgs({
  options: { against: { type: 'string' }, port: { type: 'string', default: '54437' } },
});

const REQUESTS = 100;
const CREDENTIAL_ATTEMPTS = 2000;
const IN_FLIGHT = 20;

/** What each alias of the attack reads, as a fragment: a few tokens per alias, so the tokens limit stays far. */
const FRAGMENT =
  'fragment R on RequestConnection { nodes { id name state notes createdAt updatedAt dueDate ' +
  'items { id name kind description required status verified isNa } ' +
  'recipients { id firstName lastName email phone language } } }';
const document = (aliases: number) =>
  `{ ${Array.from({ length: aliases }, (_, i) => `a${i}: requests(first: 100) { ...R }`).join(' ')} } ${FRAGMENT}`;

/** Aliases in one operation: as many as pass the cost limit of one operation. */
function aliasesPerOperation(): number {
  const sdl = loadSdl();
  const schema = buildASTSchema(typeof sdl === 'string' ? parse(sdl) : (sdl as never));
  const cost = (aliases: number) => {
    let found = 0;
    const errors = validate(schema, parse(document(aliases)), [
      costLimitRule({ maxCost: Infinity, flattenFragments: true, onAccept: [(_context, { n }) => (found = n)] }),
    ]);
    if (errors.length) throw new Error(`the attack's document does not fit the schema: ${errors[0].message}`);
    return found;
  };
  let aliases = 1;
  while (cost(aliases + 1) <= MAX_QUERY_COST) aliases++;
  return aliases;
}

const ALIASES = aliasesPerOperation();
const batch = (aliases: number) =>
  JSON.stringify(Array.from({ length: MAX_BATCH_OPERATIONS }, () => ({ query: document(aliases) })));
/** The attack: every operation of a batch as costly as one operation may be. */
const BATCH = batch(ALIASES);
/** The attack made to fit the alias limit of one operation (graphql-armor's 15). */
const BATCH_OF_15 = batch(15);
/** The most one request may ask for now: one operation of 15 aliases. */
const ONE_OF_15 = JSON.stringify({ query: document(15) });

const ms = (from: number) => Math.round(performance.now() - from);
const sleep = (milliseconds: number) => new Promise((done) => setTimeout(done, milliseconds));

async function post(url: string, key: string, body: string) {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  // A short answer is shown: a refusal, or errors.
  return { status: response.status, ms: ms(started), bytes: text.length, short: text.length < 2000 ? text : '' };
}

/** Another client's `{ viewer { email } }` every 20 ms until `done` resolves (and a second at least). */
async function bystander(url: string, key: string, done: Promise<unknown>) {
  const latencies: number[] = [];
  let finished = false;
  void done.finally(() => (finished = true));
  const until = performance.now() + 1000;
  while (!finished || performance.now() < until) {
    const started = performance.now();
    const answer = await post(url, key, JSON.stringify({ query: '{ viewer { email } }' }));
    if (answer.status !== 200) throw new Error(`the other client was answered ${answer.status}`);
    latencies.push(answer.ms);
    await sleep(Math.max(0, 20 - ms(started)));
  }
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, median: latencies[latencies.length >> 1], max: latencies.at(-1)! };
}

/** Peak RSS of `server` while `done` is pending, sampled every 20 ms. */
async function peakRss(server: ServerProcess, done: Promise<unknown>) {
  let peak = server.rssMb();
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    peak = Math.max(peak, server.rssMb());
    await sleep(20);
  }
  return Math.round(peak);
}

async function batchAttack(server: ServerProcess, attacker: string, other: string, body: string, batches = 1) {
  const rssBefore = Math.round(server.rssMb());
  const attack = Promise.all(Array.from({ length: batches }, () => post(server.url, attacker, body)));
  const [answers, peak, latency] = await Promise.all([
    attack,
    peakRss(server, attack),
    bystander(server.url, other, attack),
  ]);
  return {
    attack: answers
      .map((a) => `${a.status} in ${(a.ms / 1000).toFixed(1)} s, ${(a.bytes / 1e6).toFixed(1)} MB`)
      .join('; '),
    ...(answers[0].short ? { answered: answers[0].short.slice(0, 200) } : {}),
    rss: `${rssBefore} → ${peak} MB`,
    other: `median ${latency.median} ms, max ${latency.max} ms (${latency.count} queries)`,
  };
}

async function credentialAttack(server: ServerProcess, counters: () => Promise<number>, other: string) {
  const rowsBefore = await counters();
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  const attempt = async () => {
    while (next < CREDENTIAL_ATTEMPTS) {
      const made = randomBytes(24).toString('base64url');
      const response =
        next++ % 2 === 0
          ? await fetch(`${server.url}/templates`, { headers: { authorization: `Bearer gth_${made}` } })
          : await fetch(`${server.url}/r/${made}/api`);
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  const attack = Promise.all(Array.from({ length: IN_FLIGHT }, attempt));
  const [, latency] = await Promise.all([attack, bystander(server.url, other, attack)]);
  const seconds = (performance.now() - started) / 1000;
  return {
    attack: [...statuses].map(([status, count]) => `${count} × ${status}`).join(', '),
    rate: `${Math.round(CREDENTIAL_ATTEMPTS / seconds)} requests/s`,
    rows: `${(await counters()) - rowsBefore} rate_limit_counter rows`,
    other: `median ${latency.median} ms, max ${latency.max} ms (${latency.count} queries)`,
  };
}

async function main() {
  const dir = join(ROOT, '.data', 'batch-attack-pg');
  mkdirSync(dir, { recursive: true });
  const pg = await startEmbeddedPostgres({ dir, port: Number(args.port), database: 'gather_attack' });
  const orm = await createOrm({ url: pg.url, ...DATA_MODEL, poolMax: 2 });
  const db = new Db({ url: pg.url, poolMax: 2, metadata: orm.getMetadata() });
  try {
    await migrate(orm);
    const sql = (text: string) => db.rows(text);
    await sql(`truncate organization, rate_limit_counter cascade`);
    const tenant = (name: string) =>
      createOrganization(db, { name, adminEmail: `admin@${name.toLowerCase()}.example` });
    const attacker = (await tenant('Attacker')).apiKey;
    const other = (await tenant('Other')).apiKey;
    const counters = async () => Number((await sql(`select count(*) as n from rate_limit_counter`))[0].n);
    console.log(
      `batch: ${MAX_BATCH_OPERATIONS} operations of ${ALIASES} aliases each, ${(BATCH.length / 1024).toFixed(0)} KB`,
    );
    const contenders = [
      ...(args.against ? [{ label: 'against', root: resolve(args.against) }] : []),
      { label: 'this', root: ROOT },
    ];
    for (const { label, root } of contenders) {
      await sql(`truncate rate_limit_counter`);
      const server = await startServer('production', {
        dbUrl: pg.url,
        poolMax: 10,
        cpuProf: false,
        env: { BENCH_ROOT: root },
        label,
      });
      try {
        if (root === contenders[0].root) {
          // The attacker's organization holds the requests the attack reads.
          for (let i = 0; i < REQUESTS; i++) {
            const response = await fetch(`${server.url}/requests`, {
              method: 'POST',
              headers: { authorization: `Bearer ${attacker}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                name: `Request ${i}`,
                items: [
                  { type: 'UPLOAD', name: 'W-2', required: true },
                  { type: 'QUESTION', name: 'Any dependents?', required: false },
                ],
                recipients: [
                  { first_name: 'Ana', last_name: 'Diaz', email: `ana${i}@example.com`, auth_method: { type: 'NONE' } },
                  { first_name: 'Bo', last_name: 'Lee', email: `bo${i}@example.com`, auth_method: { type: 'NONE' } },
                ],
              }),
            });
            if (response.status !== 200) throw new Error(`POST /requests: ${response.status} ${await response.text()}`);
          }
        }
        // Warm: the other client's query, and the one heavy operation both versions run (compiled from its
        // second run), so that no phase pays for a cold start.
        await bystander(server.url, other, sleep(500));
        for (let i = 0; i < 2; i++) await post(server.url, attacker, ONE_OF_15);
        console.log(`\n${label} (${root})`);
        // Each phase in a rate-limit window of its own: the other client's key stays far from its limit.
        const phases: Array<[string, () => Promise<object>]> = [
          ['one batch', () => batchAttack(server, attacker, other, BATCH)],
          ['three batches at once', () => batchAttack(server, attacker, other, BATCH, 3)],
          ['one batch of 15 aliases per operation', () => batchAttack(server, attacker, other, BATCH_OF_15)],
          ['one operation of 15 aliases', () => batchAttack(server, attacker, other, ONE_OF_15)],
          ['made-up credentials', () => credentialAttack(server, counters, other)],
        ];
        for (const [phase, run] of phases) {
          await sql(`truncate rate_limit_counter`);
          console.log(`  ${phase}:`, await run());
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await db.close();
    await orm.close();
    await pg.stop();
  }
}

main().catch((err) => {
  console.error(err);
  killAllServers();
  process.exit(1);
});
