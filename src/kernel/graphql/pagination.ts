import { QueryBuilder } from '@mikro-orm/postgresql';
import { baseQuery, findLean, queryRows, type LeanQuery, type Row } from '../db/lean';
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

/** A page of a list; `totalCount` runs its query only when a client selects the field. */
export type Connection<T = any> = {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: () => Promise<number>;
};

export type SortDirection = 'ASC' | 'DESC';

/** A keyset ordering: a column of the root alias, then `id` in the same direction as tie-breaker. */
export type KeysetOrder = {
  /** Entity property, for `orderBy`. */
  property: string;
  /** SQL column, for the keyset comparison. */
  column: string;
  direction: SortDirection;
};

type CursorValue = string | number;

export function encodeCursor(value: unknown, id: string): string {
  const key = value instanceof Date ? value.toISOString() : (value as CursorValue);
  return Buffer.from(JSON.stringify([key, id])).toString('base64url');
}

/** An edge whose cursor is encoded when read: most clients select the nodes alone. */
class LazyEdge<T> {
  constructor(
    readonly node: T,
    private readonly property: string,
  ) {}

  get cursor(): string {
    return encodeCursor((this.node as Record<string, unknown>)[this.property], (this.node as { id: string }).id);
  }
}

export function decodeCursor(cursor: string, argument: string): [CursorValue, string] {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(decoded) &&
      decoded.length === 2 &&
      (typeof decoded[0] === 'string' || typeof decoded[0] === 'number') &&
      typeof decoded[1] === 'string' &&
      /^[0-9a-f-]{36}$/i.test(decoded[1])
    ) {
      return decoded as [CursorValue, string];
    }
  } catch {
    // reported below
  }
  throw AppError.validation([{ field: [argument], message: `${argument} is not a cursor this list gave out`, code: 'INVALID' }]);
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
 * Runs one page of a keyset-paginated query. `source` holds the filter (a QueryBuilder, or for hot
 * lists a statement written out, `LeanQuery`); ordering, the keyset condition and the limit are added
 * here. One statement per page, plus one for `totalCount` if selected.
 */
export async function paginate<T extends object>(
  source: QueryBuilder<T> | LeanQuery<T>,
  args: PageArgs,
  order: KeysetOrder,
): Promise<Connection<Row<T>>> {
  checkPageArgs(args);
  const backward = args.last != null || (args.before != null && args.first == null);
  const size = (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE;
  const naturalAscending = order.direction === 'ASC';
  // Walking backward reads in the opposite direction and reverses the page afterwards.
  const ascending = naturalAscending !== backward;

  // The filter is the builder's; the keyset, order and limit wrap it, and so does the count, which
  // then needs no copy of the builder.
  const base = source instanceof QueryBuilder ? baseQuery(source) : source;
  const conditions: string[] = [];
  const params: unknown[] = [...base.params];
  for (const [argument, comparison] of [
    ['after', naturalAscending ? '>' : '<'],
    ['before', naturalAscending ? '<' : '>'],
  ] as const) {
    const cursor = args[argument];
    if (cursor == null) continue;
    const [value, id] = decodeCursor(cursor, argument);
    // A row comparison keeps the keyset condition one index range scan.
    conditions.push(`(page.${order.column}, page.id) ${comparison} (?, ?)`);
    params.push(value, id);
  }
  const direction = ascending ? 'asc' : 'desc';
  const sql = `select * from (${base.sql}) as page ${conditions.length ? `where ${conditions.join(' and ')}` : ''}
    order by page.${order.column} ${direction}, page.id ${direction} limit ${size + 1}`;
  const rows = await findLean<T>(base.em, base.entity, sql, params);
  const more = rows.length > size;
  const page = more ? rows.slice(0, size) : rows;
  if (backward) page.reverse();

  const edges = page.map((node) => new LazyEdge(node, order.property));
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
    totalCount: async () => {
      const [row] = await queryRows<{ count: string }>(base.em, `select count(*) as count from (${base.sql}) as counted`, base.params);
      return Number(row.count);
    },
  };
}
