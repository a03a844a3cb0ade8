import type { EntityManager, EntityMetadata, EntityName, QueryBuilder } from '@mikro-orm/postgresql';

/**
 * The read path. Profiles of the list queries showed MikroORM's entity creation (EntityFactory,
 * property accessors, identity map, snapshots) taking 75-85% of a request's CPU, and its statements
 * sent as text with the values inlined. Reads that nothing will change need none of that: they run
 * here with their values as bind parameters and come back as plain objects with the entities'
 * property names, relations as `{ id }` references. Writes keep using managed entities.
 */

/** The entity name of a lean record, for code that must tell types apart (Node.__resolveType). */
export const LEAN_ENTITY = Symbol('leanEntity');

type Row = Record<string, unknown>;
type Mapper = (row: Row) => Record<string, unknown>;

const mappers = new WeakMap<EntityMetadata, Mapper>();

const toDate = (value: unknown) => (value == null ? null : value instanceof Date ? value : new Date(value as string));

/**
 * Builds (once per entity) the function turning a row of its table into a lean record: generated
 * code that assigns every field in one go, so records of an entity share one hidden class and the
 * mapping costs little more than the assignments (a loop of per-field closures showed in profiles).
 */
function mapperFor(meta: EntityMetadata): Mapper {
  let mapper = mappers.get(meta);
  if (mapper) return mapper;
  const lines = meta.props
    .filter((prop) => (prop.kind === 'scalar' || prop.kind === 'm:1') && prop.fieldNames?.length === 1 && prop.persist !== false)
    .map((prop) => {
      const name = JSON.stringify(prop.name);
      const column = `row[${JSON.stringify(prop.fieldNames[0])}]`;
      if (prop.kind === 'm:1') return `out[${name}] = ${column} == null ? null : { id: ${column} };`;
      if (prop.runtimeType === 'Date') return `out[${name}] = toDate(${column});`;
      if (prop.runtimeType === 'bigint' || prop.type === 'bigint') return `out[${name}] = ${column} == null ? null : String(${column});`;
      return `out[${name}] = ${column} ?? null;`;
    });
  // One class per entity: its prototype carries the entity's name, so a record holds only its fields.
  const Record = class {} as unknown as new () => Row;
  Object.defineProperty(Record.prototype, LEAN_ENTITY, { value: meta.className });
  // The generated code comes from the entity metadata alone (property and column names), never from data.
  mapper = new Function('Record', 'toDate', `return function map(row) { const out = new Record(); ${lines.join(' ')} return out; };`)(Record, toDate) as Mapper;
  mappers.set(meta, mapper);
  return mapper;
}

/**
 * Runs a statement with bind parameters (`?` placeholders) on the entity manager's connection, inside
 * its transaction when it has one, and tells the ORM's logger (statement counts).
 */
export async function queryRows<T = Row>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const query = em.getConnection().getKnex().raw(sql, params as never[]);
  const transaction = em.getTransactionContext();
  if (transaction) query.transacting(transaction);
  em.config.getLogger().logQuery({ query: sql, level: 'info' });
  const result = (await query) as { rows: T[] };
  return result.rows;
}

/** Rows of `entity`'s table as lean records. */
export async function findLean<T extends object>(em: EntityManager, entity: EntityName<T>, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const map = mapperFor(em.getMetadata().get(entity as never));
  return (await queryRows<Row>(em, sql, params)).map(map) as T[];
}

/** A QueryBuilder's statement, to run or to wrap, with what running it as lean records needs. */
export function baseQuery<T extends object>(qb: QueryBuilder<T>): { em: EntityManager; entity: EntityName<T>; sql: string; params: unknown[] } {
  const { sql, bindings } = qb.getKnexQuery().toSQL();
  return { em: (qb as unknown as { em: EntityManager }).em, entity: qb.mainAlias.entityName as EntityName<T>, sql, params: [...bindings] };
}

/** The table of an entity, for hand-written lean statements. */
export const tableOf = (em: EntityManager, entity: EntityName<any>) => em.getMetadata().get(entity as never).tableName;
