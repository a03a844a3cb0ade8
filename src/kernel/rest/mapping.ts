import { found, fromPayload, type RestResponse } from './engine';

const camel = (key: string) => key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The GraphQL input for the snake_case fields a client sent: an absent field stays absent (PATCH
 * leaves it alone), null stays null (clears it), a value goes through its converter when it has one.
 */
export function inputFromBody(
  body: Record<string, unknown>,
  fields: readonly string[],
  converters: Record<string, (value: any) => unknown> = {},
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(field in body)) continue;
    const value = body[field];
    input[camel(field)] = value === null || !converters[field] ? value : converters[field](value);
  }
  return input;
}

/** The organization a path names, looked up with `node(id:)`: 404 unless it is the caller's. */
export function foundOrganization<N extends object | null, K extends string>(
  node: N,
  field: K,
): Extract<NonNullable<N>, Record<K, unknown>> {
  return found(node && field in node ? (node as Extract<NonNullable<N>, Record<K, unknown>>) : null, 'Organization');
}

/** A delete answered: 204 without a body, or 422 from the payload's user errors. */
export function noContent<P extends { userErrors: { field: string[] | null; message: string; code: string }[] }>(
  payload: P,
  key: keyof P,
): RestResponse {
  fromPayload(payload, key);
  return { status: 204 };
}
