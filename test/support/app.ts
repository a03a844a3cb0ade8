import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp, type AppOptions } from '../../src/app';
import type { Config } from '../../src/config/config';
import { Db } from '../../src/kernel/db/db';
import { createOrm } from '../../src/kernel/db/orm';
import { DEFAULT_MAX_QUERY_ALIASES } from '../../src/kernel/limits';
import { createStorage, type Storage } from '../../src/kernel/storage';
import { DATA_MODEL } from '../../src/modules';
import {
  DEFAULT_UNFINISHED_UPLOAD_BYTES,
  DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
} from '../../src/modules/portal/portal.uploads.limits';
import { createOrganization } from '../../src/modules/identity/identity.service';
import { signInLinkForEmail } from '../../src/modules/sessions/session.service';
import { checkResponses } from './response-check';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';

export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? '/tmp/gather-test';
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    embeddedPgPort: 0,
    publicUrl: 'https://gather.test',
    logLevel: 'silent',
    production: false,
    // graphql-armor's alias limit, as deployed; tests of select-everything documents raise it.
    graphql: { graphiql: true, introspection: true, maxAliases: DEFAULT_MAX_QUERY_ALIASES },
    // Off, as the bench runs it; tests of the limits set their own.
    rateLimits: { windowMs: 60_000, apiKey: 0, link: 0, address: 0 },
    trustProxy: false,
    secret: TEST_SECRET,
    bodyLimit: 1024 * 1024,
    dbPoolMax: 5,
    shutdownTimeoutMs: 1000,
    webhooks: {
      allowPrivate: true,
      timeoutMs: 2000,
      secretGraceMs: 86_400_000,
      disableAfterMs: 5 * 86_400_000,
    },
    mail: { from: 'Gather <no-reply@gather.test>' },
    sms: {},
    storage: { driver: 'local', dir: join(dataDir, 'files') },
    maxUploadBytes: 256 * 1024 * 1024,
    unfinishedUploadBytes: {
      organization: DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
      total: DEFAULT_UNFINISHED_UPLOAD_BYTES,
    },
    maxFilesPerItem: 100,
    exactCountLimit: 10_000,
    signing: {},
    expirationWarningDays: 3,
    jobConcurrency: 4,
    jobPollMs: 200,
    // Longer than any test file: statement counts must not depend on when a cached key expires.
    sharedCacheSeconds: 3600,
    ...overrides,
  };
}

/**
 * The log tests give what wants one (an S3 client's SDK messages): silent, unless TEST_LOG names a level
 * (as for the app's own log, below).
 */
export const testLog = pino({ level: process.env.TEST_LOG ?? 'silent' });

/** Counts the SQL statements the app sends (statement-count assertions); each is one round trip. */
export class StatementCounter {
  statements: string[] = [];
  get count(): number {
    return this.statements.length;
  }
  reset(): void {
    this.statements = [];
  }
}

export type TestApp = {
  app: FastifyInstance;
  /** For tests that look at rows directly (its own connection pool). */
  orm: MikroORM;
  /** The app's database. */
  db: Db;
  sql: StatementCounter;
  config: Config;
  storage: Storage;
  close(): Promise<void>;
};

export function workerDatabaseUrl(): string {
  const template = process.env.GATHER_TEST_DATABASE_URL;
  if (!template) throw new Error('GATHER_TEST_DATABASE_URL is unset: run the tests through jest (global-setup.ts)');
  return template.replace('_WORKER', `_${process.env.JEST_WORKER_ID ?? '1'}`);
}

/** Empties every table of this worker's database, so each test file starts from nothing. */
export async function truncateAll(orm: MikroORM): Promise<void> {
  const tables = await orm.em
    .fork()
    .getConnection()
    .execute<{ tablename: string }[]>(
      `select tablename from pg_tables where schemaname = 'public' and tablename <> 'mikro_orm_migrations'`,
    );
  await orm.em
    .fork()
    .getConnection()
    .execute(`truncate table ${tables.map((t) => `"${t.tablename}"`).join(', ')} cascade`);
  // And the job queue's jobs, through its administration function.
  await orm.em
    .fork()
    .getConnection()
    .execute('select graphile_worker.complete_jobs(array(select id from graphile_worker.jobs))');
}

/**
 * The whole service on this worker's database, emptied, not listening, with a data directory (and so
 * file storage) of its own, removed on close.
 */
export async function createTestApp(
  overrides: Partial<Config> = {},
  options: Omit<Partial<AppOptions>, 'config' | 'orm'> = {},
): Promise<TestApp> {
  const sql = new StatementCounter();
  const orm = await createOrm({ url: workerDatabaseUrl(), ...DATA_MODEL, poolMax: 2 });
  const db = new Db({
    url: workerDatabaseUrl(),
    poolMax: 5,
    metadata: orm.getMetadata(),
    onStatement: (statement) => sql.statements.push(statement),
  });
  await truncateAll(orm);
  const dataDir = mkdtempSync(join(tmpdir(), 'gather-test-'));
  const config = testConfig({ dataDir, ...overrides });
  const storage = options.storage ?? createStorage(config.storage, testLog);
  // Jobs (event consumers, webhook deliveries, notifications, timed work) are run by hand (jobs.runDue) unless a
  // test asks for the running workers, so their polling neither races assertions nor shows up in statement counts.
  const app = await buildApp({
    config,
    orm,
    db,
    runJobs: false,
    // TEST_LOG=error (or another level) shows the app's log on stderr, to find the cause of a 500.
    ...(process.env.TEST_LOG ? { loggerInstance: testLog as never } : {}),
    ...options,
    storage,
  });
  const responses = checkResponses(app);
  await app.ready();
  return {
    app,
    orm,
    db,
    sql,
    config,
    storage,
    async close() {
      await app.close();
      await db.close();
      await orm.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (responses.failures.length > 0) {
        throw new Error(
          `Answers that the OpenAPI document does not describe:\n${[...new Set(responses.failures)].join('\n')}`,
        );
      }
    },
  };
}

/**
 * Another instance of `t`'s service on its database, with the production settings that hide the schema:
 * `production`, GraphiQL and introspection off. Built, not yet ready or listening.
 */
export function productionInstance(t: TestApp): Promise<FastifyInstance> {
  return buildApp({
    config: { ...t.config, production: true, graphql: { ...t.config.graphql, graphiql: false, introspection: false } },
    orm: t.orm,
    runJobs: false,
  });
}

export type Tenant = { organizationId: string; userId: string; apiKey: string };

/**
 * A session of a user signed in as a browser would (a link made as the CLI makes one, then used), as the headers of
 * a call from the service's own pages: its cookie and Origin.
 */
export async function sessionHeaders(t: TestApp, userId: string): Promise<Record<string, string>> {
  const [{ email }] = await t.db.rows<{ email: string }>('select email from app_user where id = ?', [userId]);
  const { url } = await signInLinkForEmail(t.db, t.app.contexts.settings, email);
  const verified = await t.app.inject({
    method: 'POST',
    url: '/auth/verify',
    payload: { token: new URL(url).searchParams.get('token') },
  });
  if (verified.statusCode !== 200)
    throw new Error(`POST /auth/verify answered ${verified.statusCode}: ${verified.body}`);
  return { cookie: String(verified.headers['set-cookie']).split(';')[0], origin: new URL(t.config.publicUrl).origin };
}

let tenantCount = 0;

/** A fresh organization with its ADMIN and the admin's API key. */
export async function createTenant(db: Db, name = `Org ${++tenantCount}`): Promise<Tenant> {
  const email = `admin-${Date.now()}-${++tenantCount}-${Math.random().toString(36).slice(2)}@example.com`;
  const { organization, user, apiKey } = await createOrganization(db, { name, adminEmail: email });
  return { organizationId: organization.id, userId: user.id, apiKey };
}

/**
 * An HTTP client bound to one API key, or to other credentials' headers (a signed-in user's cookie and the Origin of
 * the service's pages: `sessionHeaders`).
 */
export function client(app: FastifyInstance, apiKey?: string | Record<string, string>) {
  const credential = typeof apiKey === 'string' ? { authorization: `Bearer ${apiKey}` } : (apiKey ?? {});
  const headers = (extra?: Record<string, string>) => ({ ...credential, ...extra });
  const send = (options: InjectOptions & { headers?: Record<string, string> }): Promise<LightMyRequestResponse> =>
    app.inject({ ...options, headers: headers(options.headers) });
  return {
    get: (url: string, extra?: Record<string, string>) => send({ method: 'GET', url, headers: extra }),
    delete: (url: string) => send({ method: 'DELETE', url }),
    post: (url: string, body?: unknown, extra?: Record<string, string>) =>
      send({ method: 'POST', url, payload: body as never, headers: extra }),
    patch: (url: string, body?: unknown) => send({ method: 'PATCH', url, payload: body as never }),
    async graphql<T = any>(
      query: string,
      variables?: Record<string, unknown>,
    ): Promise<{ data: T; errors?: Array<{ message: string; extensions?: Record<string, any> }> }> {
      const response = await send({ method: 'POST', url: '/graphql', payload: { query, variables } });
      return response.json();
    },
  };
}

/**
 * The whole service (as `createTestApp` makes it), a fresh organization (`tenantName`, or a numbered one) and its
 * admin's HTTP client: what most test files start from.
 */
export async function createTenantApp(
  overrides: Partial<Config> = {},
  options: Omit<Partial<AppOptions>, 'config' | 'orm'> = {},
  tenantName?: string,
): Promise<{ t: TestApp; tenant: Tenant; api: ReturnType<typeof client> }> {
  const t = await createTestApp(overrides, options);
  const tenant = await createTenant(t.db, tenantName);
  return { t, tenant, api: client(t.app, tenant.apiKey) };
}
