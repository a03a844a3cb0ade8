import type { EntityName } from '@mikro-orm/core';
import type { Reader, Row } from '../db/db';
import type { Properties } from './projection';
import { AppError } from '../errors/app-error';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../limits';

export type PageArgs = {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
};

export type Edge<T = any> = { cursor: string; node: T };

export type PageInfo = {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
};

/** How many rows a list holds, and whether that is PostgreSQL's estimate rather than a count. */
export type TotalCount = { count: number; estimated: boolean };

/** A list's statement (`?` placeholders), to be paged: its rows are records of `entity`. */
export type ListQuery<T> = { db: Reader; entity: EntityName<T>; sql: string; params: readonly unknown[] };

/**
 * A page of a list; `totalCount` runs its statements only when a client selects the count (once per
 * page, whichever of `totalCount` and `totalCountEstimated` asks): exact up to `exactUpTo` rows.
 */
export type Connection<T = any> = {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: (exactUpTo: number) => Promise<TotalCount>;
};

/**
 * The count fields every connection type has (schema: `totalCount`, `totalCountEstimated`), with the
 * deployment's `EXACT_COUNT_LIMIT`.
 */
export const countFields = {
  totalCount: async (connection: Connection, _args: unknown, ctx: { settings: { exactCountLimit: number } }) =>
    (await connection.totalCount(ctx.settings.exactCountLimit)).count,
  totalCountEstimated: async (connection: Connection, _args: unknown, ctx: { settings: { exactCountLimit: number } }) =>
    (await connection.totalCount(ctx.settings.exactCountLimit)).estimated,
};

/**
 * Counts the rows of a list's statement, exactly up to `exactUpTo`: the count stops one row past it,
 * so a page of a list of a million rows costs at most that many index entries instead of the whole
 * list on every call. Past it, the count is the planner's estimate of the statement's rows (from the
 * table's statistics, at the cost of planning), never below the rows already counted.
 */
async function countRows(base: ListQuery<any>, exactUpTo: number): Promise<TotalCount> {
  const limit = Math.max(0, Math.floor(exactUpTo));
  const [row] = await base.db.rows<{ count: string }>(
    `select count(*) as count from (select 1 from (${base.sql}) as counted limit ${limit + 1}) as capped`,
    base.params,
  );
  const count = Number(row.count);
  if (count <= limit) return { count, estimated: false };
  const [plan] = await base.db.rows<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    `explain (format json) ${base.sql}`,
    base.params,
  );
  const estimate = Math.round(plan['QUERY PLAN'][0].Plan['Plan Rows']);
  return { count: Math.min(Math.max(estimate, count), MAX_GRAPHQL_INT), estimated: true };
}

/** GraphQL's `Int` is 32 bits. */
const MAX_GRAPHQL_INT = 2 ** 31 - 1;

export type SortDirection = 'ASC' | 'DESC';

/** A keyset ordering: a column of the root alias, then a unique one (`id` unless `tie` names another) in the same direction. */
export type KeysetOrder = {
  /** Entity property, for `orderBy`. */
  property: string;
  /** SQL column, for the keyset comparison. */
  column: string;
  direction: SortDirection;
  /** The tie-breaker when it is not `id`: a unique integer column (an insertion order). */
  tie?: 'seq';
};

type CursorValue = string | number;

export function encodeCursor(value: unknown, tie: string): string {
  const key = value instanceof Date ? value.toISOString() : (value as CursorValue);
  return Buffer.from(JSON.stringify([key, tie])).toString('base64url');
}

/** An edge whose cursor is encoded when read: most clients select the nodes alone. */
class LazyEdge<T> {
  constructor(
    readonly node: T,
    private readonly property: string,
    private readonly tie: string,
  ) {}

  get cursor(): string {
    const node = this.node as Record<string, unknown>;
    return encodeCursor(node[this.property], String(node[this.tie]));
  }
}

export function decodeCursor(cursor: string, argument: string): [CursorValue, string] {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(decoded) &&
      decoded.length === 2 &&
      (typeof decoded[0] === 'string' || typeof decoded[0] === 'number') &&
      // An id, or an insertion order (a bigint, which pg reads as a string of digits).
      typeof decoded[1] === 'string' &&
      /^([0-9a-f-]{36}|\d{1,19})$/i.test(decoded[1])
    ) {
      return decoded as [CursorValue, string];
    }
  } catch {
    // reported below
  }
  throw AppError.validation([
    { field: [argument], message: `${argument} is not a cursor this list gave out`, code: 'INVALID' },
  ]);
}

export function checkPageArgs(args: PageArgs): void {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value !== undefined && value !== null && (value < 1 || value > MAX_PAGE_SIZE)) {
      throw AppError.validation([
        { field: [name], message: `${name} must be between 1 and ${MAX_PAGE_SIZE}`, code: 'OUT_OF_RANGE' },
      ]);
    }
  }
  if (args.first != null && args.last != null) {
    throw AppError.validation([{ field: ['last'], message: 'give first or last, not both', code: 'INVALID' }]);
  }
}

/**
 * Runs one page of a keyset-paginated query. `base` holds the filter; ordering, the keyset condition and the limit are added
 * here. One statement per page, plus one for `totalCount` if selected (two past the exact limit).
 * Given `properties` (what the document selects of the nodes, `selectedNodeProperties`), the page
 * reads only their columns, and its records carry only those.
 */
export async function paginate<T extends object>(
  base: ListQuery<T>,
  args: PageArgs,
  order: KeysetOrder,
  properties: Properties = null,
): Promise<Connection<Row<T>>> {
  checkPageArgs(args);
  const backward = args.last != null || (args.before != null && args.first == null);
  const size = (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE;
  const naturalAscending = order.direction === 'ASC';
  // Walking backward reads in the opposite direction and reverses the page afterwards.
  const ascending = naturalAscending !== backward;

  // The keyset, order and limit wrap the filter's statement, and so does the count.
  const conditions: string[] = [];
  const params: unknown[] = [...base.params];
  for (const [argument, comparison] of [
    ['after', naturalAscending ? '>' : '<'],
    ['before', naturalAscending ? '<' : '>'],
  ] as const) {
    const cursor = args[argument];
    if (cursor == null) continue;
    const [value, tie] = decodeCursor(cursor, argument);
    // A row comparison keeps the keyset condition one index range scan.
    conditions.push(`(page.${order.column}, page.${order.tie ?? 'id'}) ${comparison} (?, ?)`);
    params.push(value, tie);
  }
  const direction = ascending ? 'asc' : 'desc';
  // The cursor of an edge is the ordering property's value.
  const tie = order.tie ?? 'id';
  const columns =
    (properties && base.db.columns(base.entity, [order.property, tie, ...properties], 'page')) ??
    base.db.columns(base.entity, null, 'page')!;
  // Prepared: its text varies with the filters given and the columns selected, not with their values.
  const sql = `select ${columns} from (${base.sql}) as page ${conditions.length ? `where ${conditions.join(' and ')}` : ''}
    order by page.${order.column} ${direction}, page.${tie} ${direction} limit ?`;
  const rows = await base.db.records<T>(base.entity, sql, [...params, size + 1], { prepared: true });
  const more = rows.length > size;
  const page = more ? rows.slice(0, size) : rows;
  if (backward) page.reverse();

  const edges = page.map((node) => new LazyEdge(node, order.property, tie));
  let counted: Promise<TotalCount> | undefined;
  return {
    edges,
    nodes: page,
    pageInfo: {
      hasNextPage: backward ? args.before != null : more,
      hasPreviousPage: backward ? more : args.after != null,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges[edges.length - 1]?.cursor ?? null;
      },
    },
    totalCount: (exactUpTo) => (counted ??= countRows(base, exactUpTo)),
  };
}
