import type { EntityManager, EntityMetadata, EntityName, QueryBuilder, Reference } from '@mikro-orm/postgresql';
import { dateAsText, Pipeline, sendOne, sendPipeline, type StatementConfig } from './pipeline';

/**
 * The read path. Profiles of the list queries showed MikroORM's entity creation (EntityFactory,
 * property accessors, identity map, snapshots) taking 75-85% of a request's CPU, and its statements
 * sent as text with the values inlined. Reads that nothing will change need none of that: they run
 * here with their values as bind parameters and come back as plain objects with the entities'
 * property names, relations as `{ id }` references. The hottest write (a new request with its items
 * and recipients) builds such records too and inserts them in one statement, and the request's
 * update writes its changes to the row it locked (`updateRecord`); other writes keep using managed
 * entities.
 */

type RowValue<V> = V extends Reference<any> ? { readonly id: string } : V;

/**
 * A record as read paths return it: the entity's stored properties, read-only, relations as
 * `{ id }`. A lean record is one; so is a managed entity, seen through this type. Changing a row is a
 * type error, because a lean record is saved by nothing: writers get managed entities from lookups
 * named `…ForUpdate`, or lock a row (`…RowForUpdate`) and write their changes with `updateRecord`.
 */
export type Row<E> = { readonly [K in keyof E]: RowValue<E[K]> };

/** The entity name of a lean record, for code that must tell types apart (Node.__resolveType). */
export const LEAN_ENTITY = Symbol('leanEntity');

type Fields = Record<string, unknown>;
type Mapper = (row: unknown[]) => Record<string, unknown>;
type Prop = EntityMetadata['props'][number];

/**
 * What lean records of an entity share: their class, the stored properties, and the row mappers, one
 * per column layout a statement returns (rows come as arrays: pg then builds no object per row).
 */
type Shape = { Record: new () => Fields; props: Prop[]; mappers: Map<string, Mapper> };

const shapes = new WeakMap<EntityMetadata, Shape>();
const MAX_MAPPERS = 500;

/** A timestamp column of a raw row (the driver answers strings) as a Date. */
export const toDate = (value: unknown) =>
  value == null ? null : value instanceof Date ? value : new Date(value as string);

const isJson = (prop: Prop) => prop.type === 'json' || prop.columnTypes?.[0] === 'jsonb';

function shapeOf(meta: EntityMetadata): Shape {
  let shape = shapes.get(meta);
  if (shape) return shape;
  const props = meta.props.filter(
    (prop) =>
      (prop.kind === 'scalar' || prop.kind === 'm:1') && prop.fieldNames?.length === 1 && prop.persist !== false,
  );
  // One class per entity: its prototype carries the entity's name, so a record holds only its fields.
  const Record = class {} as unknown as new () => Fields;
  Object.defineProperty(Record.prototype, LEAN_ENTITY, { value: meta.className });
  shape = { Record, props, mappers: new Map() };
  shapes.set(meta, shape);
  return shape;
}

/**
 * The function turning a row of `columns` into a lean record: generated code that assigns the fields
 * in one go, so records of one layout share one hidden class and the mapping costs little more than the
 * assignments (a loop of per-field closures showed in profiles). A record carries the properties its
 * row has columns for, and only those: a read of some columns (`columnsOf`) makes a small record,
 * which a request holds while its other statements run, so what survives young collections shrinks
 * with it. Loaders never hand such a record to a caller wanting more (`RecordLoader`).
 */
function mapperFor(shape: Shape, columns: readonly string[]): Mapper {
  const key = columns.join(',');
  let mapper = shape.mappers.get(key);
  if (mapper) return mapper;
  // Layouts follow the documents' selections (kernel/graphql/projection.ts), which clients write.
  if (shape.mappers.size >= MAX_MAPPERS) shape.mappers.clear();
  const lines = shape.props.map((prop) => {
    const name = JSON.stringify(prop.name);
    const index = columns.indexOf(prop.fieldNames[0]);
    if (index < 0) return '';
    const column = `row[${index}]`;
    if (prop.kind === 'm:1') return `out[${name}] = ${column} == null ? null : { id: ${column} };`;
    if (prop.runtimeType === 'Date') return `out[${name}] = toDate(${column});`;
    if (prop.runtimeType === 'bigint' || prop.type === 'bigint')
      return `out[${name}] = ${column} == null ? null : String(${column});`;
    return `out[${name}] = ${column} ?? null;`;
  });
  // The generated code comes from the entity metadata and the statement's column names (fixed by the
  // statement's text, never by data) and holds them only as quoted literals and indexes.
  mapper = new Function(
    'Record',
    'toDate',
    `return function map(row) { const out = new Record(); ${lines.join(' ')} return out; };`,
  )(shape.Record, toDate) as Mapper;
  shape.mappers.set(key, mapper);
  return mapper;
}

const metaOf = (em: EntityManager, entity: EntityName<any>) => em.getMetadata().get(entity as never) as EntityMetadata;

/**
 * A new lean record of `entity`, as a read of its row would give it once inserted (`insertRecords`):
 * every stored property set, defaults from the entity's `onCreate` (id, timestamps), relations as
 * `{ id }` (given as ids or records).
 */
export function newRecord<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  values: { [K in keyof T]?: unknown },
): Row<T> {
  return builderOf(shapeOf(metaOf(em, entity))).create(values as Fields, em) as Row<T>;
}

/**
 * Generated per entity, as the row mappers are: a new record (`newRecord`) and an insert's row (its
 * columns for `insertRecords`), each assigning its fields by name. Assigned in a loop by computed
 * keys, an object past a dozen fields turns into a dictionary (V8), which every later read, and the
 * insert's `JSON.stringify`, pays for; a record built so shares the hidden class of a read one.
 */
type Builder = {
  create: (given: Fields, em: EntityManager) => Fields;
  row: (record: Fields) => Fields;
  /**
   * A record as its insert or update stored it: its JSON columns (`jsonColumns`, as the insert returns
   * them) from `returned`, or as given when the statement wrote none, the rest as given.
   */
  stored: (record: Fields, returned?: unknown[]) => Fields;
  jsonColumns: string;
};
const builders = new WeakMap<Shape, Builder>();

function builderOf(shape: Shape): Builder {
  let builder = builders.get(shape);
  if (builder) return builder;
  const { props } = shape;
  // As with the mappers, names come from the entity metadata, only as quoted literals and indexes.
  const create = props.map((prop, index) => {
    const name = JSON.stringify(prop.name);
    const onCreate = prop.onCreate ? ` if (v === undefined) v = props[${index}].onCreate(given, em);` : '';
    const reference = prop.kind === 'm:1' ? ` if (v != null) v = { id: typeof v === 'string' ? v : v.id };` : '';
    return `v = given[${name}];${onCreate}${reference} out[${name}] = v ?? null;`;
  });
  // JSON columns take the value itself (their null is SQL NULL, as everywhere here); see `stored`.
  const row = props.map(
    (prop, index) =>
      `${JSON.stringify(prop.fieldNames[0])}: ${isJson(prop) ? `record[${JSON.stringify(prop.name)}]` : `stored(props[${index}], record[${JSON.stringify(prop.name)}])`}`,
  );
  // What a read would answer otherwise than the record holds: jsonb's own key order, a timestamp or
  // a bigint as a read maps it (see mapperFor).
  let json = 0;
  const asStored = props.map((prop) => {
    const name = JSON.stringify(prop.name);
    if (isJson(prop)) return `out[${name}] = (returned ? returned[${json++}] : record[${name}]) ?? null;`;
    if (prop.runtimeType === 'Date') return `out[${name}] = toDate(record[${name}]);`;
    if (prop.runtimeType === 'bigint' || prop.type === 'bigint')
      return `out[${name}] = record[${name}] == null ? null : String(record[${name}]);`;
    return `out[${name}] = record[${name}] ?? null;`;
  });
  builder = new Function(
    'Record',
    'props',
    'stored',
    'toDate',
    `return {
      create: function create(given, em) { const out = new Record(); let v; ${create.join(' ')} return out; },
      row: function row(record) { return { ${row.join(', ')} }; },
      stored: function asStored(record, returned) { const out = new Record(); ${asStored.join(' ')} return out; },
    };`,
  )(shape.Record, props, stored, toDate) as Builder;
  builder.jsonColumns = selectList(props.filter(isJson));
  builders.set(shape, builder);
  return builder;
}

/** A property's value as its column stores it, for a bind parameter. */
function stored(prop: Prop, value: unknown): unknown {
  if (prop.kind === 'm:1')
    return value == null ? null : typeof value === 'string' ? value : (value as { id: string }).id;
  // A JSON column's null stays SQL NULL, not the JSON value null.
  return isJson(prop) && value != null ? JSON.stringify(value) : value;
}

/** Adds a property's value to `params` as its column stores it; returns the placeholder. */
function bind(prop: Prop, value: unknown, params: unknown[]): string {
  params.push(stored(prop, value));
  return isJson(prop) ? '?::jsonb' : '?';
}

/**
 * The SQL type a column's values take on their way in from JSON (`jsonb_to_recordset`). Character
 * columns take text, so that a value too long fails when stored, as it does from a VALUES list (a
 * cast to varchar(n) would cut it).
 */
function jsonColumnType(prop: Prop): string {
  const type = (prop.columnTypes?.[0] ?? 'text').replace(/\(.*\)$/, '');
  return /^(varchar|char|character|character varying|text)$/.test(type) ? 'text' : type;
}

/**
 * Inserts lean records in one statement, whatever their tables (each table's rows in a data-modifying
 * CTE; foreign keys are checked at the statement's end, so parents and children may come together).
 * Answers the first batch's records as a read would give them (every column is written from the
 * record; of the stored row, the insert returns only the JSON columns, in jsonb's key order: a row
 * of 33 columns parsed and mapped again showed in the create's profile), so a caller rendering them
 * needs no read back. Each table's rows go as one JSON
 * parameter (`jsonb_to_recordset`), so the statement's text depends only on the tables: it is
 * prepared (parsing and planning a create's insert cost PostgreSQL as much as running it), and
 * PostgreSQL reads one value instead of a parameter per field.
 */
export async function insertRecords(
  em: EntityManager,
  batches: [EntityName<any>, readonly object[]][],
): Promise<Row<any>[]> {
  const params: unknown[] = [];
  const metas: EntityMetadata[] = [];
  for (const [entity, records] of batches) {
    if (records.length === 0) continue;
    const meta = metaOf(em, entity);
    metas.push(meta);
    const { row } = builderOf(shapeOf(meta));
    params.push(JSON.stringify(records.map((record) => row(record as Fields))));
  }
  const [first] = metas;
  if (!first) return [];
  const result = await run(em, insertStatement(metas), params, 'array', { prepared: true });
  // The first batch's rows, in the order the insert returned them: what it wrote, and its JSON columns as stored.
  const given = new Map(
    (batches.find(([, records]) => records.length > 0)![1] as Fields[]).map((record) => [record.id, record]),
  );
  const { stored: asStored } = builderOf(shapeOf(first));
  return (result.rows as unknown[][]).map(([id, ...returned]) => asStored(given.get(id)!, returned));
}

// The insert of each list of tables, made once: its text is a prepared statement's name, looked up per call.
const insertStatements = new Map<string, string>();
function insertStatement(metas: EntityMetadata[]): string {
  const key = metas.map((meta) => meta.className).join();
  let sql = insertStatements.get(key);
  if (sql === undefined) {
    const inserts = metas.map((meta, index) => {
      const { props } = shapeOf(meta);
      const columns = selectList(props);
      const types = props.map((prop) => `${prop.fieldNames[0]} ${jsonColumnType(prop)}`).join(', ');
      // The first table's rows come back: their ids, and what PostgreSQL stores otherwise than given (see
      // insertRecords).
      const returning =
        index === 0 ? ` returning ${['id', builderOf(shapeOf(meta)).jsonColumns].filter(Boolean).join(', ')}` : '';
      return `insert into ${meta.tableName} (${columns}) select * from jsonb_to_recordset(?::jsonb) as r (${types})${returning}`;
    });
    sql =
      inserts.length === 1
        ? inserts[0]
        : `with ${inserts.map((insert, index) => `i${index} as (${insert})`).join(', ')} select * from i0`;
    insertStatements.set(key, sql);
  }
  return sql;
}

/** The columns of `props` as a statement lists them, each `alias.`-prefixed when given. */
const selectList = (props: readonly Prop[], alias?: string) =>
  props.map((prop) => (alias ? `${alias}.${prop.fieldNames[0]}` : prop.fieldNames[0])).join(', ');

/**
 * Every stored column of `entity` (those lean records hold), as a list for statements that name them (prepared ones
 * must).
 */
export const allColumnsOf = (em: EntityManager, entity: EntityName<any>, alias?: string): string =>
  selectList(shapeOf(metaOf(em, entity)).props, alias);

/**
 * Writes `changes` to the row of `entity` whose id is `id`, with the entity's `onUpdate` values
 * (`updatedAt`) beside them, in one statement, and returns the row as written, as a lean record: a
 * writer holding the row it locked changes it without a managed entity, its change set and flush.
 */
export async function updateRecord<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  id: string,
  changes: { [K in keyof T]?: unknown },
): Promise<Row<T>> {
  const { meta, shape, sql, params } = updateOf(em, entity, id, changes);
  const result = await run(em, `${sql} returning *`, params, 'array');
  if (result.rows.length !== 1) throw new Error(`${meta.className} ${id} was not updated`);
  return mapperFor(
    shape,
    result.fields.map((field) => field.name),
  )(result.rows[0] as unknown[]) as Row<T>;
}

/** The update of `changes` with the entity's `onUpdate` values, and the values it writes by property. */
function updateOf(em: EntityManager, entity: EntityName<any>, id: string, changes: Fields) {
  const meta = metaOf(em, entity);
  const shape = shapeOf(meta);
  const sets: string[] = [];
  const params: unknown[] = [];
  const written: Fields = {};
  for (const prop of shape.props) {
    let value = changes[prop.name];
    if (value === undefined) {
      if (!prop.onUpdate) continue;
      value = prop.onUpdate(changes, em);
    }
    written[prop.name] = value;
    sets.push(`${prop.fieldNames[0]} = ${bind(prop, value, params)}`);
  }
  params.push(id);
  return { meta, shape, sql: `update ${meta.tableName} set ${sets.join(', ')} where id = ?`, params, written };
}

/**
 * `updateRecord` for a writer holding the whole row it locked (`current`, every column read): the
 * record as the update writes it is known without an answer, so the update is handed over with
 * `writeAtCommit` (a lean transaction sends it with its next statement, the event render's reads
 * for a PATCH: one round trip less) and the record returned at once. Null when a JSON column
 * changes (PostgreSQL stores jsonb in an order of its own, which only the row read back shows) or
 * `current` lacks a column: use `updateRecord` then.
 */
export async function updateAtCommit<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  current: Row<T>,
  changes: { [K in keyof T]?: unknown },
): Promise<Row<T> | null> {
  const { shape, sql, params, written } = updateOf(em, entity, (current as Fields).id as string, changes);
  // A record of some columns only (`columnsOf`) would make one with the others null.
  if (shape.props.some((prop) => (isJson(prop) && written[prop.name] !== undefined) || !(prop.name in current)))
    return null;
  await writeAtCommit(em, sql, params);
  return builderOf(shape).stored({ ...(current as Fields), ...written }) as Row<T>;
}

type PgResult = { rows: unknown[]; fields: { name: string }[] };
type PgConnection = { query(pipeline: Pipeline): Pipeline };
/** Takes each row of a result as it arrives, with the result's columns. */
type OnRow = (row: unknown[], fields: readonly { name: string }[]) => void;
type KnexClient = {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
};
/**
 * A knex transaction, knex itself, or a lean transaction (kernel/db/transaction.ts), which holds its
 * connection and takes the writes made last in it (`writeAtCommit`).
 */
type KnexLike = {
  client: KnexClient;
  isCompleted?(): boolean;
  leanConnection?: PgConnection;
  atCommit?(statement: StatementConfig): void;
};

// `?` placeholders as PostgreSQL's `$1, $2, …`, converted once per statement text: loaders, lookups
// and lists repeat theirs; inserts vary with their row counts, hence the bound.
const positional = new Map<string, string>();
const MAX_POSITIONAL = 5_000;
function toPositional(sql: string): string {
  let text = positional.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (positional.size >= MAX_POSITIONAL) positional.clear();
    positional.set(sql, text);
  }
  return text;
}

// Names of the prepared statements (see StatementOptions), one per text. Prepared statements belong
// to a connection and stay for its life, so the set must stay small: past the bound a caller is
// preparing texts that vary, which is a bug.
const prepared = new Map<string, string>();
const MAX_PREPARED = 50;
function preparedName(text: string): string {
  let name = prepared.get(text);
  if (name === undefined) {
    if (prepared.size >= MAX_PREPARED)
      throw new Error(`more than ${MAX_PREPARED} prepared statements: prepare only statements whose text is fixed`);
    name = `gather_${prepared.size + 1}`;
    prepared.set(text, name);
  }
  return name;
}

/** How a lean statement is sent. */
export type StatementOptions = {
  /**
   * Sent as a named statement, which PostgreSQL parses once per connection and may plan once (its
   * generic plan) instead of at every call: the event's statement, with a CTE per hook, cost
   * PostgreSQL more to parse and plan than to run. Only for statements whose text is fixed (the
   * set of them stays small) and whose result names its columns: with `*`, a migration that adds a
   * column makes the prepared statement fail ("cached plan must not change result type").
   */
  prepared?: boolean;
};

/**
 * Runs a statement with bind parameters (`?` placeholders; none may appear in literals) on the entity
 * manager's connection, inside its transaction when it has one, and tells the ORM's logger (statement
 * counts). It goes to the `pg` connection that knex holds (the transaction's, or one from its pool)
 * without knex's query building and runner: those were a sixth of a by-id read's CPU in profiles.
 */
async function run(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
  rowMode?: 'array',
  options?: StatementOptions,
  onRow?: OnRow,
): Promise<PgResult> {
  const text = toPositional(sql);
  return send(em, sql, text, params, rowMode, options?.prepared ? preparedName(text) : undefined, onRow);
}

/**
 * The parameters as sent (`dateAsText`), copied only when one holds a Date: most statements (every
 * read by id or key) hold none, and need no copy.
 */
function asParameters(params: readonly unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    if (params[i] instanceof Date) return params.map(dateAsText);
  }
  // pg only reads them.
  return params as unknown[];
}

/**
 * Sends `text` (logged as `logged`), named `name` when it is a prepared statement. With `onRow`, each
 * row goes there as it arrives and the result holds none (a pipeline of one, kernel/db/pipeline.ts):
 * pg then keeps no array of the statement's rows until its end, and a row's arrays die as soon as it
 * is taken (a request waiting for its other statements held them through young collections).
 */
async function send(
  em: EntityManager,
  logged: string,
  text: string,
  params: readonly unknown[],
  rowMode?: 'array',
  name?: string,
  onRow?: OnRow,
): Promise<PgResult> {
  const config = { text, values: asParameters(params), rowMode, name };
  return onConnection(em, logged, (connection) => sendOne(connection, config, { onRow }));
}

/**
 * Has `use` send on the entity manager's connection (its transaction's, or one of the pool, given back
 * after), logging `logged` for the ORM's logger (statement counts).
 */
async function onConnection<R>(
  em: EntityManager,
  logged: string,
  use: (connection: PgConnection) => Promise<R>,
): Promise<R> {
  const transaction = em.getTransactionContext<KnexLike>();
  if (transaction?.isCompleted?.()) throw new Error('query on a finished transaction');
  const { client } = transaction ?? (em.getConnection().getKnex() as unknown as KnexLike);
  em.config.getLogger().logQuery({ query: logged, level: 'info' });
  // A lean transaction's statements go straight to its connection: no promise to take and give it back.
  const held = transaction?.leanConnection;
  if (held) return use(held);
  const connection = await client.acquireConnection();
  try {
    return await use(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A write whose result nobody reads, made last in its transaction (the outbox's event): in a lean
 * transaction (kernel/db/transaction.ts) it is held and sent with the `commit`, in one round trip,
 * and its failure fails the commit; in any other, it is sent now. Logged now, in its place among the
 * transaction's statements.
 */
export async function writeAtCommit(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
  options?: StatementOptions,
): Promise<void> {
  const transaction = em.getTransactionContext<KnexLike>();
  if (!transaction?.atCommit) {
    await run(em, sql, params, undefined, options);
    return;
  }
  if (transaction.isCompleted?.()) throw new Error('query on a finished transaction');
  const text = toPositional(sql);
  em.config.getLogger().logQuery({ query: sql, level: 'info' });
  transaction.atCommit({
    text,
    values: asParameters(params),
    name: options?.prepared ? preparedName(text) : undefined,
  });
}

/** A statement's rows as objects keyed by column name (see `run`). */
export async function queryRows<T = Fields>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  options?: StatementOptions,
): Promise<T[]> {
  return (await run(em, sql, params, undefined, options)).rows as T[];
}

/** Rows of `entity`'s table as lean records. */
export async function findLean<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  sql: string,
  params: readonly unknown[] = [],
  options?: StatementOptions,
): Promise<Row<T>[]> {
  const shape = shapeOf(metaOf(em, entity));
  const records: Row<T>[] = [];
  let map: Mapper | undefined;
  await run(em, sql, params, 'array', options, (row, fields) => {
    map ??= mapperFor(
      shape,
      fields.map((field) => field.name),
    );
    records.push(map(row) as Row<T>);
  });
  return records;
}

/** A statement of `entity`'s rows with its parameters (`?` placeholders; none in literals). */
export type LeanStatement = { entity: EntityName<any>; sql: string; params: readonly unknown[] };

/**
 * Several statements' rows as lean records, in one round trip: one pipeline of bound statements
 * (kernel/db/pipeline.ts), each row mapped as it arrives. Reads waiting together (a list's owners,
 * items and recipients; a render's children of one request) cost one socket write at each end and
 * one wake of a PostgreSQL backend instead of one each, and in a transaction one round trip instead
 * of one each. A failure fails them all. The log (and the statement counts) sees one entry, the
 * statements' texts joined.
 */
export async function findLeanTogether(em: EntityManager, statements: readonly LeanStatement[]): Promise<Row<any>[][]> {
  const records = statements.map((): Row<any>[] => []);
  const maps: (Mapper | undefined)[] = [];
  const piped = statements.map(({ sql, params }) => ({ text: toPositional(sql), values: params }));
  await onConnection(em, statements.map(({ sql }) => sql).join(';\n'), (connection) =>
    sendPipeline(
      connection,
      new Pipeline(piped, (index, row, fields) => {
        const map = (maps[index] ??= mapperFor(
          shapeOf(metaOf(em, statements[index].entity)),
          fields.map((field) => field.name),
        ));
        records[index].push(map(row) as Row<any>);
      }),
    ),
  );
  return records;
}

/** A statement of `entity`'s rows (`?` placeholders), to run or to wrap, and where to run it. */
export type LeanQuery<T> = { em: EntityManager; entity: EntityName<T>; sql: string; params: unknown[] };

/** A QueryBuilder's statement, to run or to wrap, with what running it as lean records needs. */
export function baseQuery<T extends object>(qb: QueryBuilder<T>): LeanQuery<T> {
  const { sql, bindings } = qb.getKnexQuery().toSQL();
  return {
    em: (qb as unknown as { em: EntityManager }).em,
    entity: qb.mainAlias.entityName as EntityName<T>,
    sql,
    params: [...bindings],
  };
}

/**
 * The columns holding `properties` of `entity` (`id` always) as a select list (`alias.`-prefixed when
 * given), in the entity's order so that a set of properties gives one statement text; null when one
 * of them is no stored property (read the row).
 */
export function columnsOf(
  em: EntityManager,
  entity: EntityName<any>,
  properties: Iterable<string>,
  alias?: string,
): string | null {
  const { props } = shapeOf(metaOf(em, entity));
  const wanted = new Set(properties);
  wanted.add('id');
  const selected = props.filter((prop) => wanted.delete(prop.name));
  return wanted.size === 0 ? selectList(selected, alias) : null;
}

/** The table of an entity, for hand-written lean statements. */
export const tableOf = (em: EntityManager, entity: EntityName<any>) => metaOf(em, entity).tableName;
