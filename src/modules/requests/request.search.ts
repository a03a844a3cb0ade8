import { extensionPoint } from '../../kernel/module';

// `requests(filter: {search})`: a request matches on its name, or on what the modules above add (its
// recipients), each a condition on the request's row that this module need not know.

/** A condition on the request row `alias`; each `?` of it is bound to the search's LIKE pattern. */
export type RequestSearchPart = { sql(alias: string): string };

export const requestSearchParts = extensionPoint<RequestSearchPart>('request search');

/** The text as a case-insensitive LIKE pattern matching it anywhere, its own `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The search's condition and its parameters, or null when the text is blank (every request matches). */
export function searchCondition(alias: string, text: string): { sql: string; params: string[] } | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const pattern = containsPattern(trimmed);
  const conditions = [`${alias}.name ilike ?`, ...requestSearchParts.values().map((part) => part.sql(alias))];
  const sql = `(${conditions.join(' or ')})`;
  return { sql, params: Array.from({ length: sql.split('?').length - 1 }, () => pattern) };
}
