import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/kernel/db/embedded';
import { createOrm, migrate } from '../../src/kernel/db/orm';
import { DATA_MODEL } from '../../src/modules';
import { withClient, withDatabase } from './postgres';

export const BENCH_DATABASE = 'gather_bench';
const SEED_PREFIX = 'gather_bench_seed_';
export const BENCH_PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54398);
export const BENCH_PG_DIR = resolve(__dirname, '..', '..', '.data', 'bench-pg');
const ROOT = resolve(__dirname, '..', '..');

export type BenchDatabase = {
  /** URL of the fresh, migrated benchmark database. */
  url: string;
  /** Where it runs, for the report (no password). */
  description: string;
  /** `select version()` and the settings that shape write latency. */
  server: { version: string; settings: Record<string, string> };
  /** The seed's own record when the database was copied from a saved seed; null when it must be seeded. */
  cachedSeed: unknown | null;
  /**
   * Keeps the seeded database as a template for later runs on the same source tree (every connection
   * to it must be closed first). `record` comes back as `cachedSeed`.
   */
  saveSeed(record: unknown): Promise<void>;
  stop(): Promise<void>;
};

/**
 * What the seeded data depends on: every file under src/ (services, migrations) and the seed itself.
 * Any change there seeds afresh.
 */
export function seedKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(join(ROOT, 'src'));
  hash.update(readFileSync(join(ROOT, 'bench', 'lib', 'seed.ts')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Starts the embedded PostgreSQL under .data/bench-pg (or uses DATABASE_URL) and makes a fresh
 * `gather_bench` database beside the one it was given (that one is never touched): a copy of the seed
 * saved by an earlier run on the same source tree, or an empty, migrated database to seed.
 */
export async function openBenchDatabase(
  log: (line: string) => void,
  options: { reuseSeed: boolean },
): Promise<BenchDatabase> {
  let embedded: EmbeddedPostgres | undefined;
  let baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    log(`starting embedded PostgreSQL in ${relative(ROOT, BENCH_PG_DIR)} on 127.0.0.1:${BENCH_PG_PORT}`);
    embedded = await startEmbeddedPostgres({ dir: BENCH_PG_DIR, port: BENCH_PG_PORT, database: 'gather' });
    baseUrl = embedded.url;
  }
  const seedDatabase = `${SEED_PREFIX}${seedKey()}`;
  const admin = <T>(work: (client: Client) => Promise<T>) => withClient(baseUrl, work);
  try {
    const cached = await admin(async (client) => {
      await client.query(`drop database if exists ${BENCH_DATABASE} with (force)`);
      const found =
        options.reuseSeed &&
        (await client.query('select 1 from pg_database where datname = $1', [seedDatabase])).rowCount === 1;
      await client.query(
        found ? `create database ${BENCH_DATABASE} template ${seedDatabase}` : `create database ${BENCH_DATABASE}`,
      );
      return found;
    });
    const url = withDatabase(baseUrl, BENCH_DATABASE);
    const orm = await createOrm({ url, ...DATA_MODEL, poolMax: 1 });
    let server: BenchDatabase['server'];
    let cachedSeed: unknown | null = null;
    try {
      const connection = orm.em.fork().getConnection();
      if (cached) {
        [{ record: cachedSeed }] = await connection.execute<{ record: unknown }[]>('select record from bench_seed');
      } else {
        await migrate(orm);
      }
      const [{ version }] = await connection.execute<{ version: string }[]>('select version()');
      const rows = await connection.execute<{ name: string; setting: string }[]>(
        `select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'wal_level')`,
      );
      server = { version, settings: Object.fromEntries(rows.map((r) => [r.name, r.setting])) };
    } finally {
      await orm.close();
    }
    const where = new URL(url);
    return {
      url,
      server,
      cachedSeed,
      description: embedded
        ? `embedded PostgreSQL on 127.0.0.1:${BENCH_PG_PORT} (${relative(ROOT, BENCH_PG_DIR)}), database ${BENCH_DATABASE}`
        : `PostgreSQL at ${where.hostname}:${where.port || 5432}, database ${BENCH_DATABASE}`,
      async saveSeed(record) {
        await withClient(url, async (client) => {
          await client.query('create table bench_seed (record jsonb not null)');
          await client.query('insert into bench_seed (record) values ($1)', [JSON.stringify(record)]);
        });
        await admin(async (c) => {
          // One saved seed at a time: those of other source trees go.
          const old = await c.query(`select datname from pg_database where datname like '${SEED_PREFIX}%'`);
          for (const { datname } of old.rows) await c.query(`drop database if exists "${datname}" with (force)`);
          await c.query(`create database ${seedDatabase} template ${BENCH_DATABASE}`);
        });
      },
      async stop() {
        await embedded?.stop();
      },
    };
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
}
