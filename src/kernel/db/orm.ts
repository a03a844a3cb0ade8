import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { migrateJobQueue } from '../jobs/queue';

/** The modules' entities and migrations (see kernel/module.ts). */
export type DataModel = {
  entities: EntitySchema<any, any>[];
  /** In the order they apply. */
  migrations: MigrationObject[];
};

export type OrmOptions = DataModel & {
  url: string;
  poolMax: number;
  debug?: boolean;
};

/**
 * MikroORM as Gather uses it: its entities describe the tables (kernel/db/db.ts reads their
 * metadata) and its migrator makes them. Requests never go through its entity manager: its flush
 * runs in an AsyncLocalStorage, which on Node 20 turns promise hooks on for the whole process.
 */
export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities: options.entities,
    discovery: { disableDynamicFileAccess: true },
    forceUtcTimezone: true,
    // Tests read through forks of its entity manager; nothing else should.
    allowGlobalContext: false,
    // Migrations only: one connection, opened when needed.
    pool: { min: 0, max: options.poolMax },
    debug: options.debug ?? false,
    extensions: [Migrator],
    migrations: {
      migrationsList: options.migrations,
      transactional: true,
      allOrNothing: true,
      tableName: 'mikro_orm_migrations',
      silent: true,
    },
  });
}

/**
 * Applies pending migrations, the job queue's schema first (a migration of ours may add jobs); returns the names of
 * ours applied.
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  await migrateJobQueue(orm.config.get('clientUrl')!);
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
