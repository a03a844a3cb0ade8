import {
  DefaultLogger,
  type EntitySchema,
  type LogContext,
  type LoggerOptions,
  type MigrationObject,
} from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';

export type QueryListener = (sql: string) => void;

/** Passes every statement MikroORM sends to a listener (statement-count tests and benchmarks). */
class ObservedLogger extends DefaultLogger {
  constructor(
    options: LoggerOptions,
    private readonly listener?: QueryListener,
  ) {
    super(options);
  }

  override logQuery(context: { query: string } & LogContext): void {
    this.listener?.(context.query);
    super.logQuery(context);
  }
}

/** The modules' entities and migrations (see kernel/module.ts). */
export type DataModel = {
  entities: EntitySchema<any, any>[];
  /** In the order they apply. */
  migrations: MigrationObject[];
};

export type OrmOptions = DataModel & {
  url: string;
  poolMax: number;
  onQuery?: QueryListener;
  debug?: boolean;
};

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities: options.entities,
    discovery: { disableDynamicFileAccess: true },
    forceUtcTimezone: true,
    // Ids and timestamps exist from em.create() on: recipient links are derived from the id before
    // the flush, and events name their subject inside the transaction.
    processOnCreateHooksEarly: true,
    // Every operation gets its own fork; a stray use of the global manager is a bug.
    allowGlobalContext: false,
    pool: { min: 0, max: options.poolMax },
    debug: options.debug ?? false,
    loggerFactory: (loggerOptions) => new ObservedLogger(loggerOptions, options.onQuery),
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

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
