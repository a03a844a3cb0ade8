import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { encodeCursor } from '../../src/kernel/graphql/pagination';
import { createOrm, migrate } from '../../src/kernel/db/orm';
import { createOrganization } from '../../src/modules/identity/identity.service';
import { DATA_MODEL } from '../../src/modules';
import { GET_QUERY, REQUEST_FIELDS } from './documents';
import { inProcessApp, type InProcessApp } from './in-process';
import { withClient, withDatabase } from './postgres';
import type { OtherFigures, ScenarioResult } from './report';
import { ROOT, type ServerProcess } from './servers';

// Issue 14's scale scenario: one organization with a million requests (5 items and 2 recipients
// each) beside one with 500 of the same, in a database of their own. Each organization gets one
// request through the API (`requestCreate`, so its rows are what the service writes); set-based SQL
// (generate_series) then copies it N times with new ids, one second apart, states and owners in turn,
// and deletes the model. Saved as a template database like the main seed: the next run on the same
// migrations copies it.
// The same reads are then timed on both organizations, one request at a time, in alternation: the
// p50 on a million against the p50 on 500 (the issue's target: within 1.3x).

export const SMALL_REQUESTS = 500;
const OWNERS = 10;
const STATES = ['INCOMPLETE_AND_LINK_SENT', 'PARTIALLY_SUBMITTED', 'SUBMITTED', 'VERIFIED'];
const SCALE_DATABASE = 'gather_bench_scale';
const SCALE_SEED_PREFIX = 'gather_bench_scale_seed_';
/** Where copies start: request g is created at START + g seconds. */
const START = '2026-01-01T00:00:00Z';

type ScaleTenant = {
  organizationId: string;
  apiKey: string;
  requests: number;
  /** One of the ten owners (a tenth of the requests). */
  ownerId: string;
  /** A request to read by id (the middle one). */
  requestId: string;
  /** The cursor after the request 90% of the way down the list (newest first). */
  deepCursor: string;
};

export type ScaleSeed = { small: ScaleTenant; large: ScaleTenant; counts: Record<string, number>; ms: number };

/** Raised whenever `seedTenant` writes other rows: saved seeds of another version are not reused. */
const SCALE_SEED_VERSION = 1;

/** What the copies depend on: the schema (every migration), the seed's version and the size. */
function scaleKey(requests: number): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/Migration.*\.ts$|migrations\/index\.ts$/.test(path))
        hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(join(ROOT, 'src'));
  hash.update(`scale seed ${SCALE_SEED_VERSION}`);
  return `${hash.digest('hex').slice(0, 12)}_v${SCALE_SEED_VERSION}_${requests}`;
}

async function graphql(
  app: FastifyInstance,
  apiKey: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<any> {
  const response = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: { query, variables },
  });
  const body = response.json() as { data?: any; errors?: unknown[] };
  if (response.statusCode !== 200 || body.errors?.length) throw new Error(`scale seed: ${response.body.slice(0, 500)}`);
  return body.data;
}

const columnsOf = async (client: Client, table: string, except: string[]) =>
  (
    await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
      [table],
    )
  ).rows
    .map((row) => row.column_name)
    .filter((column) => !except.includes(column));

/** One organization: its admin, nine more owners, one request made through the API, then `requests` copies of it. */
async function seedTenant(local: InProcessApp, client: Client, name: string, requests: number): Promise<ScaleTenant> {
  const app = local.app;
  const {
    organization,
    user: admin,
    apiKey,
  } = await createOrganization(local.app.db, { name, adminEmail: `admin@${name}.scale.example` });
  const owners = [admin.id];
  for (let u = 1; u < OWNERS; u++) {
    const created = await graphql(
      app,
      apiKey,
      'mutation ($input: UserCreateInput!) { userCreate(input: $input) { user { id } } }',
      { input: { email: `owner${u}@${name}.scale.example`, role: 'USER' } },
    );
    owners.push(created.userCreate.user.id);
  }
  const model = await graphql(
    app,
    apiKey,
    'mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id } userErrors { message } } }',
    {
      input: {
        name: 'Scale model',
        items: [
          { upload: { name: 'Passport or national ID', required: true } },
          { upload: { name: 'Proof of address', description: 'PDF, JPG or PNG', required: true } },
          { upload: { name: 'Last two payslips', required: false } },
          { upload: { name: 'Sign: engagement letter', required: true } },
          { question: { name: 'What is your date of birth?', required: false } },
        ],
        recipients: [
          { firstName: 'Ada', lastName: 'Lovelace', email: `ada@${name}.clients.example` },
          { firstName: 'Alan', lastName: 'Turing', email: `alan@${name}.clients.example`, phone: '+1 555 0100' },
        ],
      },
    },
  );
  const modelId: string = model.requestCreate.request.id;
  const org = organization.id;
  // Ids derive from the organization and the copy's number, so the SQL needs no lookups between tables.
  const requestColumns = await columnsOf(client, 'request', [
    'id',
    'organization_id',
    'owner_id',
    'name',
    'state',
    'created_at',
    'updated_at',
  ]);
  const recipientColumns = await columnsOf(client, 'recipient', ['id', 'request_id', 'token_hash', 'created_at']);
  const itemColumns = await columnsOf(client, 'request_item', [
    'id',
    'request_id',
    'assignee_id',
    'created_at',
    'updated_at',
  ]);
  await client.query('set synchronous_commit = off');
  await client.query(
    `insert into request (id, organization_id, owner_id, name, state, created_at, updated_at, ${requestColumns.join(', ')})
     select md5($1 || ':' || g)::uuid, $1::uuid, ($3::uuid[])[1 + g % ${OWNERS}], 'Scale request ' || g,
            ($4::text[])[1 + g % ${STATES.length}], $5::timestamptz + g * interval '1 second', $5::timestamptz + g * interval '1 second',
            ${requestColumns.map((c) => `m.${c}`).join(', ')}
       from generate_series(1, $2::int) g, request m where m.id = $6`,
    [org, requests, owners, STATES, START, modelId],
  );
  await client.query(
    `insert into recipient (id, request_id, token_hash, created_at, ${recipientColumns.join(', ')})
     select md5($1 || ':' || g || ':r' || m.position)::uuid, md5($1 || ':' || g)::uuid,
            encode(sha256(convert_to($1 || ':' || g || ':r' || m.position, 'UTF8')), 'hex'), $3::timestamptz + g * interval '1 second',
            ${recipientColumns.map((c) => `m.${c}`).join(', ')}
       from generate_series(1, $2::int) g, recipient m where m.request_id = $4`,
    [org, requests, START, modelId],
  );
  await client.query(
    `insert into request_item (id, request_id, assignee_id, created_at, updated_at, ${itemColumns.join(', ')})
     select md5($1 || ':' || g || ':i' || m.position)::uuid, md5($1 || ':' || g)::uuid,
            case when a.id is null then null else md5($1 || ':' || g || ':r' || a.position)::uuid end,
            $3::timestamptz + g * interval '1 second', $3::timestamptz + g * interval '1 second',
            ${itemColumns.map((c) => `m.${c}`).join(', ')}
       from generate_series(1, $2::int) g, request_item m left join recipient a on a.id = m.assignee_id
      where m.request_id = $4`,
    [org, requests, START, modelId],
  );
  // The model's events, jobs and notifications go with it (foreign keys cascade).
  await client.query('delete from request where id = $1', [modelId]);
  const deep = await client.query<{ created_at: Date; id: string }>(
    `select created_at, id from request where organization_id = $1 and deleted_at is null order by created_at desc, id desc offset $2 limit 1`,
    [org, Math.floor(requests * 0.9)],
  );
  return {
    organizationId: org,
    apiKey,
    requests,
    ownerId: owners[3],
    requestId: `${createHash('md5')
      .update(`${org}:${Math.ceil(requests / 2)}`)
      .digest('hex')
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')}`,
    deepCursor: encodeCursor(deep.rows[0].created_at, deep.rows[0].id),
  };
}

/**
 * The scale database: a copy of the seed saved for this schema and size, or seeded now (and saved).
 * `adminUrl` names any database of the server.
 */
export async function openScaleDatabase(
  adminUrl: string,
  requests: number,
  reuseSeed: boolean,
  log: (line: string) => void,
): Promise<{ url: string; seed: ScaleSeed; cached: boolean }> {
  const template = `${SCALE_SEED_PREFIX}${scaleKey(requests)}`;
  const url = withDatabase(adminUrl, SCALE_DATABASE);
  const source = reuseSeed ? await savedSeed(adminUrl, template, requests) : null;
  await withClient(adminUrl, async (client) => {
    await client.query(`drop database if exists ${SCALE_DATABASE} with (force)`);
    await client.query(
      source ? `create database ${SCALE_DATABASE} template ${source}` : `create database ${SCALE_DATABASE}`,
    );
  });
  if (source) {
    if (source !== template) {
      // Seeded before the latest migrations: they run on the copy, which then becomes this schema's seed
      // (minutes of seeding saved for a migration that adds an index or a trigger).
      const started = Date.now();
      const orm = await createOrm({ url, ...DATA_MODEL, poolMax: 1 });
      const applied = await migrate(orm);
      await orm.close();
      log(
        `the seed saved for an earlier schema brought up to date: ${applied.join(', ')} applied in ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
      await saveTemplate(adminUrl, template);
    }
    const seed = await withClient(
      url,
      async (client) => (await client.query<{ record: ScaleSeed }>('select record from bench_seed')).rows[0].record,
    );
    return { url, seed, cached: true };
  }
  const started = Date.now();
  const orm = await createOrm({ url, ...DATA_MODEL, poolMax: 1 });
  await migrate(orm);
  await orm.close();
  const local = await inProcessApp(url);
  let seed: ScaleSeed;
  try {
    seed = await withClient(url, async (client) => {
      log(
        `seeding ${SMALL_REQUESTS} requests, then ${requests.toLocaleString('en-US')}, 5 items and 2 recipients each (set-based SQL)`,
      );
      const small = await seedTenant(local, client, 'small', SMALL_REQUESTS);
      const large = await seedTenant(local, client, 'large', requests);
      log(`rows written in ${((Date.now() - started) / 1000).toFixed(0)} s; vacuum and analyze`);
      await client.query('vacuum (analyze) request, request_item, recipient');
      const counts: Record<string, number> = {};
      for (const table of ['request', 'request_item', 'recipient'])
        counts[table] = Number((await client.query(`select count(*)::int as n from ${table}`)).rows[0].n);
      const record: ScaleSeed = { small, large, counts, ms: Date.now() - started };
      await client.query('create table bench_seed (record jsonb not null)');
      await client.query('insert into bench_seed (record) values ($1)', [JSON.stringify(record)]);
      return record;
    });
  } finally {
    await local.close();
  }
  await saveTemplate(adminUrl, template);
  return { url, seed, cached: false };
}

/** Keeps the scale database as the one saved seed (of any size: the others go). */
async function saveTemplate(adminUrl: string, template: string): Promise<void> {
  await withClient(adminUrl, async (client) => {
    const old = await client.query(`select datname from pg_database where datname like '${SCALE_SEED_PREFIX}%'`);
    for (const { datname } of old.rows) await client.query(`drop database if exists "${datname}" with (force)`);
    await client.query(`create database ${template} template ${SCALE_DATABASE}`);
  });
}

/**
 * The saved seed to copy: the one of this schema and size, else one of this size and seed version
 * whose applied migrations are all still in the code (only newer ones missing, to run on the copy).
 */
async function savedSeed(adminUrl: string, template: string, requests: number): Promise<string | null> {
  const known = new Set(DATA_MODEL.migrations.map((m) => m.name));
  return withClient(adminUrl, async (client) => {
    const saved = (
      await client.query<{ datname: string }>(
        `select datname from pg_database where datname like '${SCALE_SEED_PREFIX}%'`,
      )
    ).rows.map((r) => r.datname);
    if (saved.includes(template)) return template;
    for (const name of saved.filter((n) => n.endsWith(`_${requests}`) && n.includes(`_v${SCALE_SEED_VERSION}_`))) {
      const applied = await withClient(withDatabase(adminUrl, name), async (c) =>
        (await c.query<{ name: string }>('select name from mikro_orm_migrations')).rows.map((r) => r.name),
      );
      if (applied.every((m) => known.has(m))) return name;
    }
    return null;
  });
}

const SCALE_LIST = `query ScaleList($first: Int!, $after: String, $filter: RequestFilter) {
  requests(first: $first, after: $after, filter: $filter) {
    nodes {${REQUEST_FIELDS}
    }
  }
}`;
const SCALE_COUNT = `query ScaleCount { requests(first: 20) { totalCount totalCountEstimated } }`;

type Read = {
  key: string;
  name: string;
  body: (tenant: ScaleTenant) => string;
  check: (data: any, tenant: ScaleTenant) => string | null;
};

const list = (variables: (tenant: ScaleTenant) => Record<string, unknown>) => (tenant: ScaleTenant) =>
  JSON.stringify({ query: SCALE_LIST, variables: { first: 20, ...variables(tenant) } });
const fullPage = (data: any) =>
  data.requests.nodes.length === 20 ? null : `${data.requests.nodes.length} requests instead of 20`;

export const SCALE_READS: Read[] = [
  {
    key: 'first',
    name: 'first page (20 newest, with owner, items, recipients)',
    body: list(() => ({})),
    check: fullPage,
  },
  {
    key: 'deep',
    name: 'a page 90% deep in the keyset (after a cursor)',
    body: list((t) => ({ after: t.deepCursor })),
    check: fullPage,
  },
  {
    key: 'state',
    name: 'a page filtered by state (a quarter of the requests)',
    body: list(() => ({ filter: { states: ['SUBMITTED'] } })),
    check: fullPage,
  },
  {
    key: 'owner',
    name: 'a page filtered by owner (a tenth of the requests)',
    body: list((t) => ({ filter: { ownerIds: [t.ownerId] } })),
    check: fullPage,
  },
  {
    key: 'get',
    name: 'one request by id',
    body: (t) => JSON.stringify({ query: GET_QUERY, variables: { id: t.requestId } }),
    check: (data, t) => (data.request?.id === t.requestId ? null : 'not found'),
  },
  {
    key: 'count',
    name: 'totalCount of the list',
    body: () => JSON.stringify({ query: SCALE_COUNT, variables: {} }),
    check: (data, t) =>
      data.requests.totalCountEstimated === false && data.requests.totalCount !== t.requests
        ? `totalCount ${data.requests.totalCount}, exact, for ${t.requests}`
        : null,
  },
];

async function timed(server: ServerProcess, tenant: ScaleTenant, read: Read): Promise<{ ms: number; data: any }> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: read.body(tenant),
  });
  const text = await response.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const body = JSON.parse(text) as { data?: any; errors?: unknown[] };
  if (response.status !== 200 || body.errors?.length)
    throw new Error(`scale ${read.key} as ${tenant.requests} requests: HTTP ${response.status}: ${text.slice(0, 400)}`);
  const problem = read.check(body.data, tenant);
  if (problem) throw new Error(`scale ${read.key} as ${tenant.requests} requests: ${problem}`);
  return { ms, data: body.data };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (value: number) => Math.round(value * 100) / 100;

/** Times each read `samples` times on each organization, one request at a time, alternating. */
export async function measureScale(
  server: ServerProcess,
  seed: ScaleSeed,
  samples: number,
  log: (line: string) => void,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const read of SCALE_READS) {
    const times: Record<'small' | 'large', number[]> = { small: [], large: [] };
    const rss: number[] = [];
    const answer: Record<'small' | 'large', any> = { small: null, large: null };
    for (let i = 0; i < Math.max(5, Math.ceil(samples / 10)); i++)
      for (const side of ['small', 'large'] as const) answer[side] = (await timed(server, seed[side], read)).data;
    for (let i = 0; i < samples; i++) {
      for (const side of i % 2 ? (['large', 'small'] as const) : (['small', 'large'] as const))
        times[side].push((await timed(server, seed[side], read)).ms);
      if (i % 20 === 0) rss.push(server.rssMb());
    }
    const figures = (side: 'small' | 'large'): OtherFigures => {
      const sorted = [...times[side]].sort((a, b) => a - b);
      return {
        rps: null,
        p50_ms: round(percentile(sorted, 50)),
        p99_ms: round(percentile(sorted, 99)),
        rss_mb: side === 'large' ? Math.round(Math.max(...rss)) : null,
        samples: sorted.length,
      };
    };
    const large = figures('large');
    const small = figures('small');
    const ratio = Math.round((small.p50_ms! / large.p50_ms!) * 1000) / 1000;
    const counted =
      read.key === 'count'
        ? `; totalCount ${answer.large.requests.totalCount.toLocaleString('en-US')} (${answer.large.requests.totalCountEstimated ? 'estimated' : 'exact'}) against ${answer.small.requests.totalCount} (${answer.small.requests.totalCountEstimated ? 'estimated' : 'exact'})`
        : '';
    log(
      `${read.key}: p50 ${large.p50_ms} ms on ${seed.large.requests.toLocaleString('en-US')} requests, ${small.p50_ms} ms on ${SMALL_REQUESTS} (${(large.p50_ms! / small.p50_ms!).toFixed(2)}x)${counted}`,
    );
    results.push({
      name: `Scale: ${read.name}, ${seed.large.requests.toLocaleString('en-US')} requests`,
      ours: {
        ...large,
        ...(read.key === 'count'
          ? { total_count: answer.large.requests.totalCount, estimated: answer.large.requests.totalCountEstimated }
          : {}),
      },
      baseline: { name: `the same read on ${SMALL_REQUESTS} requests (same database and server)`, ...small },
      ratio,
      ratio_of: 'p50_latency',
      // The issue's 1.3x is for the pages and the get; the count is reported beside them.
      target: read.key === 'count' ? null : 1 / 1.3,
      met: read.key === 'count' ? null : ratio >= 1 / 1.3,
      note: `p50 over sequential requests, one at a time, alternating between the two organizations; ratio = p50 on ${SMALL_REQUESTS} ÷ p50 on the large one${read.key === 'count' ? '' : ' (target: within 1.3x, i.e. >= 77%)'}`,
    });
  }
  return results;
}
