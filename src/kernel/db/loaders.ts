import type { EntityName } from '@mikro-orm/core';
import DataLoader from 'dataloader';
import { selectedProperties, type Properties } from '../graphql/projection';
import type { Reader, Row } from './db';
import type { SharedCache, SharedCaches } from './shared-cache';

type WithId = { id: string };

/** The column of a stored property (a relation's foreign key). */
const columnOf = (db: Reader, entity: EntityName<any>, property: string): string => {
  const list = db.columns(entity, [property]);
  if (!list) throw new Error(`no stored property ${property}`);
  // The list holds `id` and the property, in the entity's order.
  return list.split(', ').find((name) => name !== 'id') ?? 'id';
};

// Statements are built once per loader kind and column set, not once per operation. Column sets
// come from documents, which clients write: the map is bounded.
const statements = new Map<string, string>();
const MAX_STATEMENTS = 2_000;
const statement = (key: string, build: () => string) => {
  let sql = statements.get(key);
  if (sql === undefined) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statements.set(key, (sql = build()));
  }
  return sql;
};

/**
 * A loader's key: an id, for the whole record, or an id with the properties its caller reads (a
 * resolver's selection, `selectedProperties`), for a record that may carry only those.
 */
export type RecordKey = string | { readonly id: string; readonly properties: Properties };

const idOf = (key: RecordKey) => (typeof key === 'string' ? key : key.id);
const propertiesOf = (key: RecordKey): Properties => (typeof key === 'string' ? null : key.properties);
function covers(held: Properties, wanted: Properties): boolean {
  if (held === null) return true;
  if (wanted === null) return false;
  for (const property of wanted) if (!held.has(property)) return false;
  return true;
}

type Entry<V> = { key: RecordKey; properties: Properties; value: Promise<V>; sent: boolean };

const unions = new WeakMap<ReadonlySet<string>, WeakMap<ReadonlySet<string>, ReadonlySet<string>>>();

/** Both sets of properties (null: everything); the same set for the same two, once made. */
function unionOf(a: Properties, b: Properties): Properties {
  if (a === null || b === null) return null;
  if (a === b) return a;
  let withA = unions.get(a);
  if (!withA) unions.set(a, (withA = new WeakMap()));
  let union = withA.get(b);
  if (!union) withA.set(b, (union = new Set([...a, ...b])));
  return union;
}

/**
 * The cache of a record loader: by id, each record with the properties it is read with. A caller
 * wanting more than an entry holds gets the entry's read when that read is not sent yet (it then
 * reads the caller's properties too: sibling fields, such as a request's `items` and its
 * `percentComplete`, share one key and one promise per record), and otherwise a read of its own:
 * never a record that lacks what it reads.
 */
class RecordCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  get(key: RecordKey): Promise<V> | undefined {
    const entry = this.entries.get(idOf(key));
    if (!entry) return undefined;
    const wanted = propertiesOf(key);
    if (covers(entry.properties, wanted)) return entry.value;
    if (entry.sent || typeof entry.key === 'string') return undefined;
    entry.properties = (entry.key as { properties: Properties }).properties = unionOf(entry.properties, wanted);
    return entry.value;
  }
  set(key: RecordKey, value: Promise<V>): void {
    this.entries.set(idOf(key), { key, properties: propertiesOf(key), value, sent: false });
  }
  delete(key: RecordKey): void {
    this.entries.delete(idOf(key));
  }
  clear(): void {
    this.entries.clear();
  }
  /** These keys' records are being read, or were given (primed): their properties are settled. */
  settle(keys: readonly RecordKey[]): void {
    for (const key of keys) {
      const entry = this.entries.get(idOf(key));
      if (entry?.key === key) entry.sent = true;
    }
  }
}

/** What one batch reads: the union of its keys' properties, or everything when one key wants it. */
const batchProperties = (keys: readonly RecordKey[]): Properties =>
  keys.slice(1).reduce<Properties>((union, key) => unionOf(union, propertiesOf(key)), propertiesOf(keys[0]));

/**
 * A DataLoader of records by key (`RecordKey`): one statement per batch, reading the columns of the
 * batch's properties only (`required` always), or every column when a key asks for the whole record.
 * Its statements are prepared: a loader's text varies only with its columns.
 */
export class RecordLoader<V> extends DataLoader<RecordKey, V, RecordKey> {
  constructor(
    db: Reader,
    entity: EntityName<any>,
    required: readonly string[],
    load: (columns: string, ids: string[]) => Promise<V[]>,
  ) {
    const cache = new RecordCache<V>();
    super(
      (keys) => {
        cache.settle(keys);
        const properties = batchProperties(keys);
        const columns = (properties && db.columns(entity, [...required, ...properties])) ?? db.columns(entity)!;
        return load(columns, keys.map(idOf));
      },
      { cacheKeyFn: (key) => key, cacheMap: cache },
    );
    this.cache = cache;
  }

  private readonly cache: RecordCache<V>;

  /** A primed record is what it is: a caller wanting more reads it again rather than widening it. */
  override prime(key: RecordKey, value: V | PromiseLike<V> | Error): this {
    super.prime(key, value);
    this.cache.settle([key]);
    return this;
  }
}

/**
 * Batches lookups by id within one operation: one statement (`id = any($1)`) per batch, the ids one
 * array parameter, so the statement's text is the same whatever their number. With `cache` (the
 * instance's shared cache of the entity's table), whole records, and a statement only for the ids
 * it does not hold.
 */
export function createByIdLoader<T extends WithId>(
  db: Reader,
  entity: EntityName<T>,
  cache?: SharedCache<Row<T> | null>,
): RecordLoader<Row<T> | null> {
  const table = db.table(entity);
  const kind = `id:${table}`;
  const read = async (columns: string, ids: string[]) => {
    const sql = statement(`${kind}:${columns}`, () => `select ${columns} from ${table} where id = any(?::uuid[])`);
    const rows = await db.records(entity, sql, [ids], { prepared: true });
    const byId = new Map<string, Row<T>>(rows.map((row) => [row.id as string, row]));
    return ids.map((id) => byId.get(id) ?? null);
  };
  return new RecordLoader(
    db,
    entity,
    [],
    cache ? (_columns, ids) => cache.getMany(ids, (missing) => read(db.columns(entity)!, missing)) : read,
  );
}

/**
 * Batches "children of these parents" within one operation: one statement per batch, in `orderBy`
 * order; `nullProperties` keeps only rows where those properties are null (soft-deleted rows out).
 * With `organizationId` (tenant-owned children: they carry `organization_id`) the statement filters
 * by it too, so it stays within one organization's rows however the tables are distributed.
 */
export function createChildrenLoader<T extends object>(
  db: Reader,
  entity: EntityName<T>,
  parentProperty: keyof T & string,
  orderBy: Record<string, 'asc' | 'desc'>,
  nullProperties: (keyof T & string)[] = [],
  organizationId?: string,
): RecordLoader<Row<T>[]> {
  const scoped = organizationId !== undefined;
  return new RecordLoader(db, entity, [parentProperty], async (columns, parentIds) => {
    const table = db.table(entity);
    const sql = statement(
      `children:${table}:${parentProperty}:${JSON.stringify(orderBy)}:${nullProperties.join()}:${scoped}:${columns}`,
      () => {
        const conditions = [
          `${columnOf(db, entity, parentProperty)} = any(?::uuid[])`,
          ...(scoped ? [`${columnOf(db, entity, 'organization')} = ?`] : []),
          ...nullProperties.map((property) => `${columnOf(db, entity, property)} is null`),
        ];
        const order = Object.entries(orderBy).map(
          ([property, direction]) => `${columnOf(db, entity, property)} ${direction}`,
        );
        return `select ${columns} from ${table} where ${conditions.join(' and ')} order by ${order.join(', ')}`;
      },
    );
    const rows = await db.records(entity, sql, scoped ? [parentIds, organizationId] : [parentIds], { prepared: true });
    const groups = new Map<string, Row<T>[]>(parentIds.map((id) => [id, []]));
    for (const row of rows) {
      const reference = (row as Record<string, unknown>)[parentProperty] as WithId;
      groups.get(reference.id)?.push(row);
    }
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

/** The key that loads what a resolver's field selects of the records it returns (`selectedProperties`). */
export const selecting = (id: string, info: SelectionInfo): RecordKey => ({ id, properties: selectedProperties(info) });

type SelectionInfo = Parameters<typeof selectedProperties>[0];

/** A record's relation. */
type Ref = { id: string };

/**
 * The record behind a reference, through the loader's cache, so the statement
 * count does not depend on which query finished first. Given the field's `info`, the record is read
 * with what the field selects only, and a selection of the id alone (the REST shapes' `owner: {id}`,
 * `team: {id}`) is answered from the reference without a read: the foreign key vouches for the row,
 * and the loaders read ids without any filter either.
 */
export function loadRef<T>(
  ref: Ref,
  loader: DataLoader<RecordKey, T | null, RecordKey>,
  info?: SelectionInfo,
): T | Promise<T | null> {
  const properties = info ? selectedProperties(info) : null;
  // Selected properties always hold `id`: one is the id alone, answered at once (GraphQL then takes
  // the value without waiting on a promise).
  if (properties?.size === 1) return { id: ref.id } as T;
  return loader.load(properties ? { id: ref.id, properties } : ref.id);
}

/**
 * `loadRef` for a required relation, whose foreign key vouches for the row: its record. Not an async
 * function: a resolver returning it costs no extra promise per parent (a list's owners).
 */
export const loadRequiredRef = <T>(
  ref: Ref,
  loader: DataLoader<RecordKey, T | null, RecordKey>,
  info?: SelectionInfo,
) => loadRef(ref, loader, info) as T | Promise<T>;

/**
 * Lets lookups by id reuse records a list already fetched: those that read no more than the records
 * carry (`properties`, when the list read only those).
 */
export function primeAll<T extends WithId>(
  loader: DataLoader<RecordKey, T | null, RecordKey>,
  records: readonly T[],
  properties: Properties = null,
): void {
  for (const record of records) loader.prime(properties ? { id: record.id, properties } : record.id, record);
}

/**
 * A loader of one operation: on its database or transaction, for its viewer's organization (loaders
 * of tenant-owned children filter by it, as every hot statement does), beside the operation's other
 * loaders (the context's `Loaders`, typed where a module declares them), which it may prime; with the
 * instance's shared caches when it reads outside a transaction (a transaction's reads may see what
 * it has not committed, which no cache may keep).
 */
export type LoaderDefinition = (
  db: Reader,
  organizationId: string,
  loaders: any,
  caches: SharedCaches | undefined,
) => DataLoader<any, any>;

/** The loaders a set of definitions makes: what a module declares on the context's `Loaders`. */
export type LoaderSet<D extends Record<string, LoaderDefinition>> = { readonly [K in keyof D]: ReturnType<D[K]> };

/**
 * Makes per-operation loader sets: an object with one loader per definition, each made on its first
 * use, so an operation pays only for the loaders it touches (most touch a handful of twenty). The
 * getters live on a prototype built once, so making a set is one small allocation.
 */
export function loaderSet<D extends Record<string, LoaderDefinition>>(
  definitions: D,
): (db: Reader, organizationId: string, caches?: SharedCaches) => LoaderSet<D> {
  class Loaders {
    constructor(
      readonly db: Reader,
      readonly organizationId: string,
      readonly caches: SharedCaches | undefined,
    ) {}
  }
  for (const name of Object.keys(definitions)) {
    Object.defineProperty(Loaders.prototype, name, {
      get(this: Loaders) {
        const loader = definitions[name](this.db, this.organizationId, this, this.caches);
        Object.defineProperty(this, name, { value: loader });
        return loader;
      },
    });
  }
  return (db, organizationId, caches) => new Loaders(db, organizationId, caches) as unknown as LoaderSet<D>;
}
