// eslint-disable-next-line no-restricted-imports -- the type of a relation, which records hold as { id }
import type { EntityMetadata, EntityName, EntityProperty, MetadataStorage, Reference } from '@mikro-orm/core';
import { Pool, type PoolClient, type QueryArrayConfig, type QueryConfig, type QueryResult } from 'pg';
import { MAX_PREPARED_STATEMENTS } from '../limits';

// The one way the service reads and writes PostgreSQL, on pg's public API. A statement is SQL with
// `?` placeholders and bind parameters; its rows come back as plain objects (`rows`) or as records
// of an entity (`records`). Every write happens in `db.transaction(async (tx) => …)`, through
// `tx.insert`, `tx.update` and `tx.execute`. MikroORM's entities describe the tables (names, columns,
// defaults) and its migrations make them; no MikroORM entity manager runs at request time.

type RowValue<V> = V extends Reference<any> ? { readonly id: string } : V;

/**
 * A record as reads return it: the entity's stored properties, read-only, relations as `{ id }`.
 * Changing one is a type error: a change is written with `tx.update`.
 */
export type Row<E> = { readonly [K in keyof E]: RowValue<E[K]> };

/** Values for an insert or an update, by property; relations as ids or `{ id }`. */
export type Values<E> = { [K in keyof E]?: unknown };

/** The entity name of a record (`Node.__resolveType` tells GraphQL types apart by it). */
export const RECORD_ENTITY = Symbol('recordEntity');

export const entityOf = (record: object): string | undefined => (record as { [RECORD_ENTITY]?: string })[RECORD_ENTITY];

export type StatementOptions = {
  /**
   * Sent as a named statement, which PostgreSQL parses and plans once per connection (the first
   * `MAX_PREPARED_STATEMENTS` texts; later ones go unnamed): for hot reads and writes whose result
   * names its columns (with `*`, a migration that adds a column makes it fail: "cached plan must not
   * change result type").
   */
  prepared?: boolean;
};

/** The PostgreSQL error of a unique constraint (`23505`), `constraint` when given. */
export const isUniqueViolation = (err: unknown, constraint?: string): boolean =>
  (err as { code?: string })?.code === '23505' &&
  (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

/** Reads, on the pool or in a transaction. */
export interface Reader {
  /** A statement's rows as objects keyed by column name. */
  rows<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: StatementOptions): Promise<T[]>;
  /** A statement's rows as records of `entity` (columns it does not know are left out). */
  records<E extends object>(
    entity: EntityName<E>,
    sql: string,
    params?: readonly unknown[],
    options?: StatementOptions,
  ): Promise<Row<E>[]>;
  /**
   * Runs `work` in a transaction, committed when it resolves and rolled back when it throws; inside a
   * transaction already, to a savepoint of it (undone alone when it throws).
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** The table of an entity, for hand-written statements. */
  table(entity: EntityName<any>): string;
  /**
   * The columns of `properties` of `entity` (`id` always; every stored one when none are named) as a
   * select list, `alias.`-prefixed when given, in the entity's order (one text per set); null when one
   * of them is no stored property.
   */
  columns(entity: EntityName<any>, properties?: Iterable<string> | null, alias?: string): string | null;
}

/** A transaction begun with `db.begin()`, which its holder ends. */
export interface HeldTransaction extends Tx {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** Writes, inside `db.transaction`. */
export interface Tx extends Reader {
  /** Inserts rows of `entity` (the entity's `onCreate` values for what they leave out); answers them as stored. */
  insert<E extends object>(entity: EntityName<E>, values: readonly Values<E>[]): Promise<Row<E>[]>;
  /** Writes `changes` (and the entity's `onUpdate` values) to the row `id`; answers it as stored. */
  update<E extends object>(entity: EntityName<E>, id: string, changes: Values<E>): Promise<Row<E>>;
  /** Runs a statement that writes; answers how many rows it touched. */
  execute(sql: string, params?: readonly unknown[], options?: StatementOptions): Promise<number>;
  /** Runs `callback` once the transaction has committed (never if it rolls back). */
  afterCommit(callback: () => void): void;
}

type Fields = Record<string, unknown>;

/** A stored column of an entity, as records hold it. */
type Column = {
  property: string;
  column: string;
  relation: boolean;
  json: boolean;
  /** The SQL type its values take on their way in from JSON (`jsonb_to_recordset`). */
  inputType: string;
  onCreate?: EntityProperty['onCreate'];
  onUpdate?: EntityProperty['onUpdate'];
};

/** What the records of one entity share: their table, its stored columns, one row mapper per column layout. */
class Shape {
  private readonly byColumn: Map<string, Column>;
  readonly byProperty: Map<string, Column>;
  private readonly mappers = new Map<string, (row: unknown[]) => Fields>();
  private readonly statements = new Map<string, string>();
  private readonly lists = new Map<string, string>();

  constructor(
    readonly name: string,
    readonly table: string,
    readonly columns: readonly Column[],
  ) {
    this.byColumn = new Map(columns.map((column) => [column.column, column]));
    this.byProperty = new Map(columns.map((column) => [column.property, column]));
  }

  /**
   * The function turning a row (an array, in the order of `fields`) into a record. Every record of a
   * layout gets its properties in the same order, so records of one layout share one hidden class;
   * assigned one by one, not copied from a template (object spread of a wide record is 4x slower).
   */
  mapper(fields: readonly { name: string }[]): (row: unknown[]) => Fields {
    const key = fields.map((field) => field.name).join(',');
    let map = this.mappers.get(key);
    if (map) return map;
    const plan = fields.map((field) => this.byColumn.get(field.name));
    const at = plan.flatMap((column, index) => (column ? [index] : []));
    const properties = at.map((index) => plan[index]!.property);
    const relations = at.map((index) => plan[index]!.relation);
    const name = this.name;
    map = (row) => {
      const out: Fields = { [RECORD_ENTITY]: name };
      for (let i = 0; i < at.length; i++) {
        const value = row[at[i]];
        out[properties[i]] = value === null ? null : relations[i] ? { id: value } : value;
      }
      return out;
    };
    // Layouts follow the select lists, which GraphQL documents' selections decide: a bounded map.
    if (this.mappers.size >= 500) this.mappers.clear();
    this.mappers.set(key, map);
    return map;
  }

  /**
   * Every stored column, named, `alias.`-prefixed when given (what a prepared statement answers in
   * place of `*`): one text per alias, which statements' code names.
   */
  columnList(alias = ''): string {
    let list = this.lists.get(alias);
    if (list === undefined) {
      const prefix = alias ? `${alias}.` : '';
      this.lists.set(alias, (list = this.columns.map((c) => prefix + c.column).join(', ')));
    }
    return list;
  }

  /** A statement text made once per key (an insert's column set, an update's). */
  statement(key: string, build: () => string): string {
    let sql = this.statements.get(key);
    if (sql === undefined) {
      if (this.statements.size >= 500) this.statements.clear();
      this.statements.set(key, (sql = build()));
    }
    return sql;
  }
}

/** A property's value as its column stores it: a relation's id, JSON as text, a Date as ISO text. */
function stored(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.relation) return typeof value === 'string' ? value : (value as { id: string }).id;
  if (column.json) return JSON.stringify(value);
  return value instanceof Date ? value.toISOString() : value;
}

function shapeOf(meta: EntityMetadata): Shape {
  const columns = meta.props
    .filter(
      (prop) =>
        (prop.kind === 'scalar' || prop.kind === 'm:1') && prop.fieldNames?.length === 1 && prop.persist !== false,
    )
    .map((prop): Column => {
      const type = (prop.columnTypes?.[0] ?? 'text').replace(/\(.*\)$/, '');
      return {
        property: prop.name,
        column: prop.fieldNames[0],
        relation: prop.kind === 'm:1',
        json: prop.type === 'json' || type === 'jsonb',
        // Character columns take text, so that a value too long fails when stored (varchar(n) would cut it).
        inputType: /^(varchar|char|character|character varying|text)$/.test(type) ? 'text' : type,
        onCreate: prop.onCreate,
        onUpdate: prop.onUpdate,
      };
    });
  return new Shape(meta.className, meta.tableName, columns);
}

const nameOf = (entity: EntityName<any>): string =>
  typeof entity === 'string'
    ? entity
    : ((entity as { meta?: { className?: string } }).meta?.className ?? (entity as { name: string }).name);

/** Statements sent, as written (tests count them; the debug log prints them). */
export type StatementListener = (sql: string) => void;

export type DbOptions = {
  url: string;
  /** Connections the pool opens at most. */
  poolMax: number;
  /** The entities' metadata (`orm.getMetadata()`), which names tables and columns. */
  metadata: MetadataStorage;
  onStatement?: StatementListener;
};

type Sent = { rows: unknown[]; fields: readonly { name: string }[]; rowCount: number | null };

/** The pool, the entities' shapes and the statements' texts: what the database and its transactions share. */
class Statements {
  private readonly shapes = new Map<string, Shape>();
  private readonly positional = new Map<string, string>();
  private readonly prepared = new Map<string, string>();

  constructor(
    private readonly metadata: MetadataStorage,
    private readonly onStatement?: StatementListener,
  ) {}

  shape(entity: EntityName<any>): Shape {
    const name = nameOf(entity);
    let shape = this.shapes.get(name);
    if (!shape) {
      const meta = this.metadata.find(name);
      if (!meta) throw new Error(`no entity named ${name}`);
      this.shapes.set(name, (shape = shapeOf(meta as EntityMetadata)));
    }
    return shape;
  }

  /** What pg sends for a statement: `$n` placeholders, Dates as ISO text, a name when prepared. */
  config(sql: string, params: readonly unknown[], options?: StatementOptions, rowMode?: 'array'): QueryConfig {
    this.onStatement?.(sql);
    let text = this.positional.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      // Inserts vary with their column sets; anything past the bound is made again.
      if (this.positional.size >= 5_000) this.positional.clear();
      this.positional.set(sql, text);
    }
    const values = params.map((value) => (value instanceof Date ? value.toISOString() : value));
    const config: QueryArrayConfig | QueryConfig = rowMode ? { text, values, rowMode } : { text, values };
    const name = options?.prepared ? this.preparedName(text) : undefined;
    if (name) config.name = name;
    return config;
  }

  // Prepared statements stay on their connection for its life, so their set is bounded: texts vary
  // with what documents select, and past the bound they are sent unnamed (parsed and planned each time).
  private preparedName(text: string): string | undefined {
    let name = this.prepared.get(text);
    if (name === undefined && this.prepared.size < MAX_PREPARED_STATEMENTS)
      this.prepared.set(text, (name = `gather_${this.prepared.size + 1}`));
    return name;
  }
}

abstract class Base implements Reader {
  abstract readonly inTransaction: boolean;

  protected constructor(protected readonly statements: Statements) {}

  protected abstract send(config: QueryConfig): Promise<Sent>;

  abstract transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;

  async rows<T = Fields>(sql: string, params: readonly unknown[] = [], options?: StatementOptions): Promise<T[]> {
    return (await this.send(this.statements.config(sql, params, options))).rows as T[];
  }

  async records<E extends object>(
    entity: EntityName<E>,
    sql: string,
    params: readonly unknown[] = [],
    options?: StatementOptions,
  ): Promise<Row<E>[]> {
    const result = await this.send(this.statements.config(sql, params, options, 'array'));
    if (result.rows.length === 0) return [];
    return (result.rows as unknown[][]).map(this.statements.shape(entity).mapper(result.fields)) as Row<E>[];
  }

  table(entity: EntityName<any>): string {
    return this.statements.shape(entity).table;
  }

  columns(entity: EntityName<any>, properties?: Iterable<string> | null, alias?: string): string | null {
    const shape = this.statements.shape(entity);
    if (!properties) return shape.columnList(alias);
    const prefix = alias ? `${alias}.` : '';
    const wanted = new Set(properties);
    wanted.add('id');
    const selected = shape.columns.filter((c) => wanted.delete(c.property));
    return wanted.size === 0 ? selected.map((c) => prefix + c.column).join(', ') : null;
  }
}

/** The database: reads on pooled connections, transactions on a connection of their own. */
export class Db extends Base {
  readonly inTransaction = false;
  readonly pool: Pool;

  constructor(options: DbOptions) {
    super(new Statements(options.metadata, options.onStatement));
    this.pool = new Pool({ connectionString: options.url, max: options.poolMax });
    // An idle connection the server dropped is an error of the pool, not of a request: it is replaced.
    this.pool.on('error', () => undefined);
  }

  protected send(config: QueryConfig): Promise<Sent> {
    return this.pool.query(config) as Promise<QueryResult>;
  }

  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const tx = await this.begin();
    let result: T;
    try {
      result = await work(tx);
    } catch (err) {
      await tx.rollback();
      throw err;
    }
    await tx.commit();
    return result;
  }

  /**
   * A transaction that outlives one function: begun now, ended by its `commit` or `rollback` (a
   * request that holds one from its first hook to its answer: an idempotency key kept with its write).
   */
  async begin(): Promise<HeldTransaction> {
    const client = await this.pool.connect();
    const tx = new Transaction(this.statements, client);
    try {
      await tx.execute('begin');
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    return tx;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class Transaction extends Base implements HeldTransaction {
  readonly inTransaction = true;
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;
  private readonly committed: Array<() => void> = [];
  private savepoints = 0;

  constructor(
    statements: Statements,
    private readonly client: PoolClient,
  ) {
    super(statements);
  }

  // A connection runs one statement at a time: statements a transaction's loaders send at once wait in turn.
  protected send(config: QueryConfig): Promise<Sent> {
    if (this.ended) return Promise.reject(new Error('statement sent after its transaction ended'));
    const sent = this.queue.then(() => this.client.query(config));
    this.queue = sent.catch(() => undefined);
    return sent;
  }

  async commit(): Promise<void> {
    try {
      await this.execute('commit');
    } catch (err) {
      await this.end(err as Error);
      throw err;
    }
    await this.end();
    for (const callback of this.committed) callback();
  }

  async rollback(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.queue;
    this.statements.config('rollback', []);
    let broken: Error | undefined;
    await this.client.query('rollback').catch((failure: Error) => (broken = failure));
    // A connection whose rollback failed is dropped instead of handed out again.
    this.client.release(broken);
  }

  private async end(failure?: Error): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // After a failed commit PostgreSQL has ended the transaction: the connection serves on.
    this.client.release(failure && !(failure as { code?: string }).code ? failure : undefined);
  }

  /** Work inside this transaction: undone alone (to a savepoint) when it throws, the rest kept. */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const savepoint = `s${++this.savepoints}`;
    await this.execute(`savepoint ${savepoint}`);
    let result: T;
    try {
      result = await work(this);
    } catch (err) {
      await this.execute(`rollback to savepoint ${savepoint}`).catch(() => undefined);
      throw err;
    }
    await this.execute(`release savepoint ${savepoint}`);
    return result;
  }

  async insert<E extends object>(entity: EntityName<E>, values: readonly Values<E>[]): Promise<Row<E>[]> {
    if (values.length === 0) return [];
    const shape = this.statements.shape(entity);
    // The columns given (by the first row) and those with an `onCreate` default; the others take the table's defaults.
    const given = values[0] as Fields;
    const columns = shape.columns.filter((c) => given[c.property] !== undefined || c.onCreate);
    const sql = shape.statement(`insert:${columns.map((c) => c.property).join()}`, () => {
      const names = columns.map((c) => c.column).join(', ');
      const types = columns.map((c) => `${c.column} ${c.inputType}`).join(', ');
      return `insert into ${shape.table} (${names}) select * from jsonb_to_recordset(?::jsonb) as r (${types}) returning ${shape.columnList()}`;
    });
    // One JSON parameter for every row: the statement's text depends on its columns only.
    const rows = values.map((record) => {
      const row: Fields = {};
      for (const column of columns) {
        let value = (record as Fields)[column.property];
        if (value === undefined && column.onCreate) value = column.onCreate(record, undefined as never);
        row[column.column] = column.relation
          ? stored(column, value)
          : value instanceof Date
            ? value.toISOString()
            : (value ?? null);
      }
      return row;
    });
    return this.records(entity, sql, [JSON.stringify(rows)], { prepared: true });
  }

  async update<E extends object>(entity: EntityName<E>, id: string, changes: Values<E>): Promise<Row<E>> {
    const shape = this.statements.shape(entity);
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const column of shape.columns) {
      let value = (changes as Fields)[column.property];
      if (value === undefined) {
        if (!column.onUpdate) continue;
        value = column.onUpdate(changes, undefined as never);
      }
      sets.push(`${column.column} = ?${column.json ? '::jsonb' : ''}`);
      params.push(stored(column, value));
    }
    params.push(id);
    const [row] = await this.records(
      entity,
      `update ${shape.table} set ${sets.join(', ')} where id = ? returning ${shape.columnList()}`,
      params,
      { prepared: true },
    );
    if (!row) throw new Error(`${shape.name} ${id} was not updated: no such row`);
    return row;
  }

  async execute(sql: string, params: readonly unknown[] = [], options?: StatementOptions): Promise<number> {
    return (await this.send(this.statements.config(sql, params, options))).rowCount ?? 0;
  }

  afterCommit(callback: () => void): void {
    this.committed.push(callback);
  }
}
