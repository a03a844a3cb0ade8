import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import type { RecipientInput, RequestItemInput } from '../../src/generated/resolvers-types';
import { createOrganization } from '../../src/modules/identity/identity.service';
import { openBenchDatabase, type BenchDatabase } from './database';
import { inProcessApp, type InProcessApp } from './in-process';

// The data set of issue 5: 1,000 requests across 5 organizations, 3 to 8 items and 1 to 3 recipients
// each, 20 templates. Organizations are made with createOrganization (as the CLI does); everything
// else through the service's own GraphQL mutations, in-process (app.inject), so the rows are the ones
// the API writes, with every rule and side effect it has, whatever the services' signatures. A seeded
// pseudo-random generator makes every run hold the same data.

export const SEED = {
  organizations: 5,
  requestsPerOrganization: 200,
  templatesPerOrganization: 4,
  usersPerOrganization: 6,
  teamsPerOrganization: 2,
  /** People each organization sends requests to; recipients are drawn from them, so contacts repeat. */
  peoplePerOrganization: 80,
} as const;

/** The tables whose row counts the report gives. */
export const SEED_TABLES = ['organization', 'app_user', 'template', 'request', 'request_item', 'recipient', 'contact'];

export type Tenant = { organizationId: string; adminUserId: string; apiKey: string };

export type SeededData = {
  tenants: Tenant[];
  /** Ids of the first tenant's requests (the tenant every scenario runs as). */
  requestIds: string[];
  counts: Record<string, number>;
  ms: number;
};

/** mulberry32: small, fast, good enough to pick fixtures. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)],
  };
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Radia',
  'Linus',
  'Frances',
  'John',
  'Hedy',
  'Tim',
  'Katherine',
  'Dennis',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Perlman',
  'Torvalds',
  'Allen',
  'McCarthy',
  'Lamarr',
  'Lee',
  'Johnson',
  'Ritchie',
];
const DOCUMENTS = [
  'Passport or national ID',
  'Proof of address (utility bill, less than 3 months old)',
  'Last two payslips',
  'Bank statement',
  'Signed engagement letter',
  'W-9 form',
  'Articles of incorporation',
  'Certificate of insurance',
  'Tax return for last year',
  'Lease agreement',
];
const QUESTIONS = [
  'What is your date of birth?',
  'Which accounting software do you use?',
  'How many employees do you have?',
  'Anything we should know?',
];
const REQUEST_NAMES = [
  'Onboarding documents',
  'Annual tax documents',
  'KYC check',
  'Mortgage application',
  'Vendor registration',
  'Year-end close',
  'Rental application',
];

type Rng = ReturnType<typeof prng>;

function itemInput(rng: Rng, index: number): RequestItemInput {
  const roll = rng.next();
  if (roll < 0.6)
    return {
      upload: {
        name: rng.pick(DOCUMENTS),
        description: index % 2 ? 'PDF, JPG or PNG' : null,
        required: rng.next() < 0.7,
      },
    };
  // Once E_SIGNATURE items (no contract, which the API now refuses); uploads in their place, the same draws.
  if (roll < 0.8) return { upload: { name: `Sign: ${rng.pick(DOCUMENTS)}`, required: true } };
  return { question: { name: rng.pick(QUESTIONS), required: rng.next() < 0.5 } };
}

type Person = { firstName: string; lastName: string; email: string; phone: string | null };

/** Runs a GraphQL mutation as the holder of `apiKey`; returns the payload's `field`, or fails loudly. */
async function mutate(
  app: FastifyInstance,
  apiKey: string,
  mutation: string,
  input: unknown,
  field: string,
): Promise<{ id: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: {
      query: `mutation Seed($input: ${mutation[0].toUpperCase()}${mutation.slice(1)}Input!) { ${mutation}(input: $input) { ${field} { id } userErrors { field message } } }`,
      variables: { input },
    },
  });
  const body = response.json() as { data?: Record<string, any>; errors?: unknown[] };
  const payload = body.data?.[mutation];
  if (response.statusCode !== 200 || body.errors?.length || !payload?.[field] || payload.userErrors?.length) {
    throw new Error(`seeding: ${mutation} failed: ${response.body.slice(0, 500)}`);
  }
  return payload[field];
}

async function seedOrganization(
  local: InProcessApp,
  index: number,
  rng: Rng,
): Promise<Tenant & { requestIds: string[] }> {
  const org = index + 1;
  const {
    organization,
    user: admin,
    apiKey,
  } = await createOrganization(local.app.db, {
    name: `Bench organization ${org}`,
    adminEmail: `admin@org${org}.bench.example`,
    adminFirstName: 'Admin',
    adminLastName: `Org ${org}`,
  });
  const run = (mutation: string, input: unknown, field: string) => mutate(local.app, apiKey, mutation, input, field);

  const teams = [];
  for (let t = 0; t < SEED.teamsPerOrganization; t++)
    teams.push(await run('teamCreate', { name: `Team ${t + 1}` }, 'team'));
  const owners = [admin.id];
  for (let u = 0; u < SEED.usersPerOrganization - 1; u++) {
    const user = await run(
      'userCreate',
      {
        email: `user${u + 1}@org${org}.bench.example`,
        firstName: rng.pick(FIRST),
        lastName: rng.pick(LAST),
        role: u === 0 ? 'ADMIN' : 'USER',
        teamId: teams[u % teams.length].id,
      },
      'user',
    );
    owners.push(user.id);
  }
  const templateIds: string[] = [];
  for (let t = 0; t < SEED.templatesPerOrganization; t++) {
    const items = Array.from({ length: rng.int(3, 6) }, (_, i) => ({
      kind: i === 0 ? 'QUESTION' : 'UPLOAD',
      name: i === 0 ? rng.pick(QUESTIONS) : rng.pick(DOCUMENTS),
      required: rng.next() < 0.7,
    }));
    const template = await run(
      'templateCreate',
      { name: `${rng.pick(REQUEST_NAMES)} template ${t + 1}`, items, reminders: 3, dueDateInterval: 14 },
      'template',
    );
    templateIds.push(template.id);
  }
  const people: Person[] = Array.from({ length: SEED.peoplePerOrganization }, (_, p) => ({
    firstName: rng.pick(FIRST),
    lastName: rng.pick(LAST),
    email: `client${p + 1}@org${org}.clients.example`,
    phone: p % 3 === 0 ? `+1 555 01${String(p).padStart(2, '0')}` : null,
  }));

  // The inputs first (so the generator's sequence does not depend on timing), then one stream per
  // owner: an owner's contacts are upserted by one transaction at a time.
  const inputs = Array.from({ length: SEED.requestsPerOrganization }, (_, r) => {
    const chosen = new Set<number>();
    const recipientCount = rng.int(1, 3);
    while (chosen.size < recipientCount) chosen.add(rng.int(0, people.length - 1));
    const recipients: RecipientInput[] = [...chosen].map((p) => ({
      ...people[p],
      authMethod: p % 5 === 0 ? 'EMAIL' : 'UNSET',
    }));
    const items: RequestItemInput[] = Array.from({ length: rng.int(3, 8) }, (_, i) => itemInput(rng, i));
    return {
      name: `${rng.pick(REQUEST_NAMES)} #${r + 1}`,
      ownerId: owners[r % owners.length],
      templateId: r % 3 === 0 ? rng.pick(templateIds) : null,
      items,
      recipients,
      personalMessage: r % 2 === 0 ? 'Hello, please upload the documents below. Thank you!' : null,
      userMetadata: r % 4 === 0 ? { crm_id: `CRM-${org}-${r}`, source: 'bench' } : {},
      mfaEnabled: r % 7 === 0,
    };
  });
  const requestIds: string[] = new Array(inputs.length);
  await Promise.all(
    owners.map(async (_owner, o) => {
      for (let r = o; r < inputs.length; r += owners.length)
        requestIds[r] = (await run('requestCreate', inputs[r], 'request')).id;
    }),
  );
  return { organizationId: organization.id, adminUserId: admin.id, apiKey, requestIds };
}

/** Spreads creation dates over 90 days and moves requests and items along their lifecycle. */
async function age(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    await client.query('select setseed(0.42)');
    await client.query(`update request set created_at = now() - random() * interval '90 days'`);
    await client.query(`update request set updated_at = created_at + random() * (now() - created_at),
      due_date = case when random() < 0.5 then created_at + interval '14 days' end,
      state = (array['INCOMPLETE_AND_LINK_SENT','INCOMPLETE_AND_LINK_SENT','PARTIALLY_SUBMITTED','SUBMITTED','VERIFIED','CLOSED'])[1 + floor(random() * 6)::int]`);
    await client.query(`update request set closed_at = updated_at where state = 'CLOSED'`);
    await client.query(`update request_item i set status = s.status, verified_at = case when s.status = 'VERIFIED' then now() end
      from (select id, (array['INCOMPLETE','INCOMPLETE','COMPLETE','COMPLETE','VERIFIED'])[1 + floor(random() * 5)::int] as status from request_item) s
      where s.id = i.id`);
    await client.query('commit');
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/**
 * Leaves the seeded tables as a database that has been running would have them: ageing rewrote every
 * request and item, so without a vacuum the first reads after seeding set the rows' hint bits and
 * skip dead versions, and a checkpoint would soon write it all out: the first contender measured after
 * a fresh seed ran a third slower than in the rounds after it. The saved seed is saved settled too.
 */
async function settle(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('vacuum (analyze)');
    // A role without the right to (PostgreSQL 15's pg_checkpoint, at a DATABASE_URL of its own) seeds without it.
    await client.query('checkpoint').catch(() => undefined);
  } finally {
    await client.end();
  }
}

export async function seed(local: InProcessApp, url: string): Promise<SeededData> {
  const started = Date.now();
  // Organizations are independent: seeding them side by side keeps this to a few seconds.
  const tenants = await Promise.all(
    Array.from({ length: SEED.organizations }, (_, i) => seedOrganization(local, i, prng(1000 + i))),
  );
  await age(url);
  // The jobs the seeded requests queued (their events' consumers, invitations kept: no mail server) run here,
  // not in the first server measured, whose job queue would otherwise work through them during the list.
  await local.app.jobs.runDue();
  await settle(url);
  const counts = Object.fromEntries(
    await Promise.all(
      SEED_TABLES.map(async (table) => {
        const [{ n }] = await local.orm.em
          .fork()
          .getConnection()
          .execute<{ n: string }[]>(`select count(*)::int as n from ${table}`);
        return [table, Number(n)] as const;
      }),
    ),
  );
  return {
    tenants: tenants.map(({ requestIds: _ids, ...tenant }) => tenant),
    requestIds: tenants[0].requestIds,
    counts,
    ms: Date.now() - started,
  };
}

/**
 * The data set of `db`: the seed saved for this source tree, or a fresh one, seeded and saved. The app
 * that seeds is closed before the save (a saved seed is a template database, copied only unconnected).
 */
export async function seededData(db: BenchDatabase): Promise<SeededData> {
  if (db.cachedSeed) return db.cachedSeed as SeededData;
  const local = await inProcessApp(db.url);
  const data = await seed(local, db.url);
  await local.close();
  await db.saveSeed(data);
  return data;
}

/**
 * The bench database (its saved seed reused) with its data set, for the tools beside the runner; the
 * database is stopped again when seeding fails.
 */
export async function openSeededDatabase(
  log: (line: string) => void,
): Promise<{ db: BenchDatabase; data: SeededData }> {
  const db = await openBenchDatabase(log, { reuseSeed: true });
  try {
    return { db, data: await seededData(db) };
  } catch (err) {
    await db.stop();
    throw err;
  }
}
