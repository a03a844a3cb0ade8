import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config/config';
import { Db } from './db';
import { startEmbeddedPostgres } from './embedded';
import { createOrm, migrate, type DataModel } from './orm';
import { join } from 'node:path';

export type Database = {
  /** Migrations and the entities' metadata. */
  orm: MikroORM;
  /** Every read and write of the service. */
  db: Db;
  /** Where the data lives, for the start-up log (no password). */
  description: string;
  /** Names of the migrations this start applied. */
  migrations: string[];
  close(): Promise<void>;
};

/**
 * Opens DATABASE_URL, or the embedded PostgreSQL under DATA_DIR when it is unset (started here, or
 * joined when another process already runs it), and applies pending migrations.
 */
export async function openDatabase(
  config: Config,
  model: DataModel,
  {
    log = () => undefined,
    progress = () => undefined,
  }: { log?: (message: string) => void; progress?: (message: string) => void } = {},
): Promise<Database> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dir: join(config.dataDir, 'postgres'),
        port: config.embeddedPgPort,
        log,
        progress,
      });
  const url = config.databaseUrl ?? embedded!.url;
  const orm = await createOrm({ url, ...model, poolMax: 1 });
  try {
    const pending = await orm.getMigrator().getPendingMigrations();
    if (pending.length) progress(`applying ${pending.length} migration${pending.length === 1 ? '' : 's'}`);
    const migrations = await migrate(orm);
    const where = new URL(url);
    const db = new Db({ url, poolMax: config.dbPoolMax, metadata: orm.getMetadata() });
    return {
      orm,
      db,
      migrations,
      description: embedded
        ? `embedded PostgreSQL on 127.0.0.1:${config.embeddedPgPort}, data in ${join(config.dataDir, 'postgres')}`
        : `PostgreSQL at ${where.hostname}:${where.port || 5432}${where.pathname}`,
      async close() {
        await db.close();
        await orm.close();
        await embedded?.stop();
      },
    };
  } catch (err) {
    await orm.close();
    await embedded?.stop();
    throw err;
  }
}
