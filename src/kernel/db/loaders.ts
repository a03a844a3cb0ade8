import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { Kind, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import { findLean, findLeanTogether, tableOf, type LeanStatement, type Row } from './lean';

type WithId = { id: string };

type Turn = LeanStatement & { done(rows: Row<any>[]): void; failed(err: unknown): void };

/** Per transaction: the last round trip of its loaders, and the batches waiting for the next. */
const turns = new WeakMap<EntityManager, { previous: Promise<void>; waiting: Turn[] | null }>();

/**
 * Reads a loader's batch. In a transaction the batches run after the previous one of the same
 * transaction (a transaction is one connection, and a connection runs one statement at a time: pg 8
 * queues them with a deprecation warning; pg 9 refuses), and the batches waiting for that turn go
 * together in one round trip (`findLeanTogether`): the loaders a resolver level touches at once, an
 * event render's children of its subject, cost one. Outside a transaction every batch takes its own
 * pooled connection and they run in parallel.
 */
function inTurn<T extends object>(em: EntityManager, entity: EntityName<T>, sql: string, params: readonly unknown[]): Promise<Row<T>[]> {
  if (!em.isInTransaction()) return findLean(em, entity, sql, params);
  return new Promise((done, failed) => {
    let turn = turns.get(em);
    if (!turn) turns.set(em, (turn = { previous: Promise.resolve(), waiting: null }));
    const statement: Turn = { entity, sql, params, done: done as Turn['done'], failed };
    if (turn.waiting) return void turn.waiting.push(statement);
    const waiting = [statement];
    const current = turn;
    current.waiting = waiting;
    current.previous = current.previous.then(async () => {
      current.waiting = null;
      try {
        const results = waiting.length === 1 ? [await findLean(em, entity, sql, params)] : await findLeanTogether(em, waiting);
        waiting.forEach((batch, index) => batch.done(results[index]));
      } catch (err) {
        for (const batch of waiting) batch.failed(err);
      }
    });
  });
}

const columnOf = (em: EntityManager, entity: EntityName<any>, property: string) => {
  const prop = em.getMetadata().get(entity as never).properties[property];
  if (!prop) throw new Error(`no property ${property}`);
  return prop.fieldNames[0];
};

// Statements are built once per loader kind, not once per operation.
const statements = new Map<string, string>();
const statement = (key: string, build: () => string) => statements.get(key) ?? (statements.set(key, build()), statements.get(key)!);

/**
 * Batches lookups by id within one operation: one statement (`id = any($1)`) per batch, the ids one
 * array parameter, so the statement's text is the same whatever their number.
 */
export function createByIdLoader<T extends WithId>(em: EntityManager, entity: EntityName<T>): DataLoader<string, Row<T> | null> {
  const sql = statement(`id:${tableOf(em, entity)}`, () => `select * from ${tableOf(em, entity)} where id = any(?::uuid[])`);
  return new DataLoader(async (ids) => {
    const rows = await inTurn(em, entity, sql, [ids]);
    const byId = new Map<string, Row<T>>(rows.map((row) => [row.id as string, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/**
 * Records read beside a children batch inside a transaction, in its round trip: a statement taking
 * the batch's parameters (the parent ids, then the organization when scoped) and what to do with
 * its rows (prime the loader that would read them next).
 */
export type Alongside<A extends object> = { entity: EntityName<A>; sql: string; prime(rows: Row<A>[]): void };

/**
 * Batches "children of these parents" within one operation: one statement per batch, in `orderBy`
 * order; `nullProperties` keeps only rows where those properties are null (soft-deleted rows out).
 * With `organizationId` (tenant-owned children: they carry `organization_id`) the statement filters
 * by it too, so it stays within one organization's rows however the tables are distributed.
 * `alongside` is read with each batch inside a transaction (where the batch waits for its turn on
 * the connection anyway), for what the transaction's reads ask of the children next; outside one,
 * nothing more is read.
 */
export function createChildrenLoader<T extends object, A extends object = object>(
  em: EntityManager,
  entity: EntityName<T>,
  parentProperty: keyof T & string,
  orderBy: Record<string, 'asc' | 'desc'>,
  nullProperties: (keyof T & string)[] = [],
  organizationId?: string,
  alongside?: Alongside<A>,
): DataLoader<string, Row<T>[]> {
  const scoped = organizationId !== undefined;
  const sql = statement(`children:${tableOf(em, entity)}:${parentProperty}:${JSON.stringify(orderBy)}:${nullProperties.join()}:${scoped}`, () => {
    const conditions = [
      `${columnOf(em, entity, parentProperty)} = any(?::uuid[])`,
      ...(scoped ? [`${columnOf(em, entity, 'organization')} = ?`] : []),
      ...nullProperties.map((p) => `${columnOf(em, entity, p)} is null`),
    ];
    const order = Object.entries(orderBy).map(([property, direction]) => `${columnOf(em, entity, property)} ${direction}`);
    return `select * from ${tableOf(em, entity)} where ${conditions.join(' and ')} order by ${order.join(', ')}`;
  });
  return new DataLoader(async (parentIds) => {
    const params = scoped ? [parentIds, organizationId] : [parentIds];
    const [rows] = await Promise.all([
      inTurn(em, entity, sql, params),
      alongside && em.isInTransaction() ? inTurn(em, alongside.entity, alongside.sql, params).then(alongside.prime) : undefined,
    ]);
    const groups = new Map<string, Row<T>[]>(parentIds.map((id) => [id, []]));
    for (const row of rows) {
      const reference = (row as Record<string, unknown>)[parentProperty] as WithId;
      groups.get(reference.id)?.push(row);
    }
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

/** A managed entity's reference, or a lean record's `{ id }`. */
type Ref<T> = { id: string; isInitialized?(): boolean; getEntity?(): T };

const onlyId = new WeakMap<readonly FieldNode[], boolean>();

/** Whether the field selects nothing of its record but `id` (and `__typename`), with no directives. */
function selectsOnlyId(info: Pick<GraphQLResolveInfo, 'fieldNodes'>): boolean {
  let known = onlyId.get(info.fieldNodes);
  if (known === undefined) {
    known = info.fieldNodes.every(
      (node) =>
        node.selectionSet?.selections.every(
          (selection) => selection.kind === Kind.FIELD && !selection.directives?.length && (selection.name.value === 'id' || selection.name.value === '__typename'),
        ) ?? false,
    );
    onlyId.set(info.fieldNodes, known);
  }
  return known;
}

/**
 * The record behind a reference. A managed entity this operation already holds primes the loader
 * instead of costing a statement; everything else goes through the loader's cache, so the statement
 * count does not depend on which query finished first. Given the field's `info`, a selection of the
 * id alone (the REST shapes' `owner: {id}`, `team: {id}`) is answered from the reference without a
 * read: the foreign key vouches for the row, and the loaders read ids without any filter either.
 */
export async function loadRef<T>(ref: Ref<T>, loader: DataLoader<string, T | null>, info?: Pick<GraphQLResolveInfo, 'fieldNodes'>): Promise<T | null> {
  if (info && selectsOnlyId(info)) return { id: ref.id } as T;
  if (ref.isInitialized?.()) loader.prime(ref.id, ref.getEntity!());
  return loader.load(ref.id);
}

/** Lets lookups by id reuse records a list already fetched. */
export function primeAll<T extends WithId>(loader: DataLoader<string, T | null>, records: readonly T[]): void {
  for (const record of records) loader.prime(record.id, record);
}

/**
 * A loader of one operation: on its entity manager, for its viewer's organization (loaders of
 * tenant-owned children filter by it, as every hot statement does), beside the operation's other
 * loaders (the context's `Loaders`, typed where a module declares them), which it may prime.
 */
export type LoaderDefinition = (em: EntityManager, organizationId: string, loaders: any) => DataLoader<any, any>;

/** The loaders a set of definitions makes: what a module declares on the context's `Loaders`. */
export type LoaderSet<D extends Record<string, LoaderDefinition>> = { readonly [K in keyof D]: ReturnType<D[K]> };

/**
 * Makes per-operation loader sets: an object with one loader per definition, each made on its first
 * use, so an operation pays only for the loaders it touches (most touch a handful of twenty). The
 * getters live on a prototype built once, so making a set is one small allocation.
 */
export function loaderSet<D extends Record<string, LoaderDefinition>>(definitions: D): (em: EntityManager, organizationId: string) => LoaderSet<D> {
  class Loaders {
    constructor(
      readonly em: EntityManager,
      readonly organizationId: string,
    ) {}
  }
  for (const name of Object.keys(definitions)) {
    Object.defineProperty(Loaders.prototype, name, {
      get(this: Loaders) {
        const loader = definitions[name](this.em, this.organizationId, this);
        Object.defineProperty(this, name, { value: loader });
        return loader;
      },
    });
  }
  return (em, organizationId) => new Loaders(em, organizationId) as unknown as LoaderSet<D>;
}
