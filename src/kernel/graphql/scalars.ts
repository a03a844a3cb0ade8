import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

// ISO 8601 as clients send it: a date alone, or a date and time with an optional zone (UTC when
// absent, as legacy clients often omit it).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parses a date-time string, or returns null when it is not one (including impossible dates). */
export function parseDateTime(value: string): Date | null {
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, zone] = match;
  // Date.parse rolls 2025-02-30 over to March; a calendar date that moves was not a real one.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return null;
  if (Number(hour ?? 0) > 23 || Number(minute ?? 0) > 59 || Number(second ?? 0) > 59) return null;
  const offset = zone && /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const time = value.slice(10, value.length - (zone?.length ?? 0)).replace(' ', 'T');
  const normalised =
    hour === undefined ? `${year}-${month}-${day}T00:00:00Z` : `${year}-${month}-${day}${time}${offset ?? 'Z'}`;
  const date = new Date(normalised);
  if (Number.isNaN(date.getTime())) return null;
  return date;
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'A point in time, written in RFC 3339 in UTC.',
  serialize(value) {
    if (value instanceof Date) return value.toISOString();
    // Raw rows (queryRows) carry timestamps as PostgreSQL writes them ("2026-11-24 20:08:44+00"):
    // answered in RFC 3339 like every Date.
    const date = typeof value === 'string' ? new Date(value) : null;
    if (date && !Number.isNaN(date.getTime())) return date.toISOString();
    throw new GraphQLError('DateTime cannot represent this value');
  },
  parseValue(value) {
    const date = typeof value === 'string' ? parseDateTime(value) : null;
    if (!date) throw new GraphQLError(`DateTime must be an ISO 8601 date-time string, got ${JSON.stringify(value)}`);
    return date;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    const date = parseDateTime(ast.value);
    if (!date)
      throw new GraphQLError(`DateTime must be an ISO 8601 date-time string, got "${ast.value}"`, { nodes: ast });
    return date;
  },
});

function checkUrl(value: unknown): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.protocol === 'http:' || url.protocol === 'https:') return value;
    } catch {
      // reported below
    }
  }
  throw new GraphQLError(`URL must be an absolute http or https URL, got ${JSON.stringify(value)}`);
}

export const URLScalar = new GraphQLScalarType<string, string>({
  name: 'URL',
  description: 'An absolute http or https URL.',
  serialize: (value) => String(value),
  parseValue: checkUrl,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('URL must be a string', { nodes: ast });
    return checkUrl(ast.value);
  },
});

export const JSONScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: 'Free-form JSON.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast: ValueNode, variables) => valueFromASTUntyped(ast, variables),
});
