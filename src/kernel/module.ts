import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import type { Reader } from './db/db';
import type { SharedCaches } from './db/shared-cache';
import type { FastifyInstance } from 'fastify';
import type { IResolvers } from '@graphql-tools/utils';
import { loaderSet, type LoaderDefinition } from './db/loaders';
import type { Consumer } from './events/consumers';
import type { GraphQLContext, Loaders } from './graphql/context';
import { nodeResolvers, type NodeKind } from './graphql/node';
import { eventResolvers, type EventSubject, type SubjectView } from './graphql/events';
import type { RestRow } from './rest/engine';
import type { MetricsSource } from './metrics/metrics';

/**
 * Everything the rest of the service needs to know about one module. Each module exports one from its
 * `<noun>.module.ts`; `src/modules/index.ts` lists them, and `foldModules` turns the list into what the
 * kernel registers, so the kernel never imports a module and adding one is one folder and one line.
 */
export type ModuleDescriptor = {
  name: string;
  /** Its MikroORM entities. */
  entities?: EntitySchema<any, any>[];
  /** Its migrations, applied in the order of their names across all modules. */
  migrations?: MigrationObject[];
  /** Its per-operation DataLoaders, by name (each module declares their types on `Loaders`). */
  loaders?: Record<string, LoaderDefinition>;
  /** Its resolvers (several modules may add fields to one type: they are merged). */
  resolvers?: IResolvers<any, GraphQLContext>;
  /**
   * Its REST rows; a function when their schemas hold what other modules contribute, as those are
   * known only once `foldModules` has applied every contribution.
   */
  restRows?: RestRow[] | (() => RestRow[]);
  /** The GraphQL types `node(id:)` may answer with, by type name. */
  nodes?: Record<string, NodeKind>;
  /** What its events are about, by subject type (`Request`): how they render and reach subscribers. */
  subjects?: Record<string, EventSubject>;
  /** What follows the events it cares about, run by the job queue once they committed. */
  consumers?: Consumer[];
  /** Values it adds to other modules' extension points (see `extensionPoint`). */
  contributes?: Contribution[];
  /**
   * Routes that are not REST rows (pages, the recipient API, which authenticate their own way),
   * registered in a scope of their own once the app's contexts exist (`app.contexts`).
   */
  routes?: (scope: FastifyInstance) => Promise<void>;
  /** Its gauges and counters on /metrics (queue depths, outcomes of its workers). */
  metrics?: MetricsSource;
  /** Stops what it runs beside the app's requests (worker threads) when the app closes. */
  stop?: () => Promise<void>;
};

/** The folded modules: what the app and the database register. */
export type Modules = {
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  createLoaders: (db: Reader, organizationId: string, caches?: SharedCaches) => Loaders;
  resolvers: IResolvers<any, GraphQLContext>[];
  restRows: RestRow[];
  /** The view of each subject type's records (the data of their events). */
  views: Record<string, SubjectView>;
  subjects: Record<string, EventSubject>;
  consumers: Consumer[];
  routes: ((scope: FastifyInstance) => Promise<void>)[];
  metrics: MetricsSource[];
  stops: (() => Promise<void>)[];
};

function mergeUnique<T>(
  what: string,
  into: Record<string, T>,
  from: Record<string, T> | undefined,
  owner: string,
): void {
  for (const [key, value] of Object.entries(from ?? {})) {
    if (key in into) throw new Error(`${what} "${key}" is declared twice (again by module ${owner})`);
    into[key] = value;
  }
}

export function foldModules(modules: ModuleDescriptor[]): Modules {
  const loaders: Record<string, LoaderDefinition> = {};
  const nodes: Record<string, NodeKind> = {};
  const subjects: Record<string, EventSubject> = {};
  for (const module of modules) {
    mergeUnique('loader', loaders, module.loaders, module.name);
    mergeUnique('node kind', nodes, module.nodes, module.name);
    mergeUnique('event subject', subjects, module.subjects, module.name);
    for (const contribution of module.contributes ?? []) contribution.apply();
  }
  return {
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []).sort((a, b) => a.name.localeCompare(b.name)),
    createLoaders: loaderSet(loaders) as unknown as Modules['createLoaders'],
    resolvers: [
      nodeResolvers(nodes),
      eventResolvers(subjects),
      ...modules.flatMap((m) => (m.resolvers ? [m.resolvers] : [])),
    ],
    restRows: modules.flatMap((m) => (typeof m.restRows === 'function' ? m.restRows() : (m.restRows ?? []))),
    views: Object.fromEntries(Object.entries(subjects).map(([type, subject]) => [type, subject.view])),
    subjects,
    consumers: modules.flatMap((m) => m.consumers ?? []),
    routes: modules.flatMap((m) => (m.routes ? [m.routes] : [])),
    metrics: modules.flatMap((m) => (m.metrics ? [m.metrics] : [])),
    stops: modules.flatMap((m) => (m.stop ? [m.stop] : [])),
  };
}

/** A value one module adds to another's extension point, applied once when the modules are folded. */
export type Contribution = { apply(): void };

/**
 * A place where a module lets others add to what it does (a request's creation asks the modules of
 * its items, recipients and attachments), so it needs not import them: they import it, and contribute
 * through their descriptors.
 */
export type ExtensionPoint<T> = {
  readonly name: string;
  /** The contributions, in the order of the modules that made them. */
  values(): readonly T[];
  contribute(value: T): Contribution;
};

export function extensionPoint<T>(name: string): ExtensionPoint<T> {
  const values: T[] = [];
  return {
    name,
    values: () => values,
    contribute: (value) => ({
      apply() {
        // Folding twice (two apps in one test process) must not add a contribution twice.
        if (!values.includes(value)) values.push(value);
      },
    }),
  };
}
