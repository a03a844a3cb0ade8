import type { MikroORM } from '@mikro-orm/postgresql';
import { storedObjects } from './documents';
import type { TestApp } from './app';

/**
 * A fingerprint of every row of every table and of every stored object: two equal snapshots mean
 * nothing was written, whatever the table (new tables are picked up without a change here).
 */
export async function snapshotDatabase(orm: MikroORM): Promise<Record<string, string>> {
  const connection = orm.em.fork().getConnection();
  const tables = await connection.execute<{ tablename: string }[]>(
    `select tablename from pg_tables where schemaname = 'public' and tablename <> 'mikro_orm_migrations' order by tablename`,
  );
  const [row] = await connection.execute<Array<Record<string, string | null>>>(
    `select ${tables.map(({ tablename }) => `(select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) || ':' || count(*) from "${tablename}" t) as "${tablename}"`).join(', ')}`,
  );
  return row as Record<string, string>;
}

export async function snapshotAll(t: TestApp): Promise<{ tables: Record<string, string>; files: string[] }> {
  return { tables: await snapshotDatabase(t.orm), files: storedObjects(t).sort() };
}
