import { print, type DocumentNode } from 'graphql';

/** What a document's variables are at the least, as GraphQL executes them. */
export type Variables = { [name: string]: unknown };

const sources = new WeakMap<DocumentNode, string>();

/**
 * The text of a generated document (its operation and the fragments it uses, whichever module's file
 * they come from), printed once: mercurius takes documents as text and caches their parsing and JIT
 * compilation per text.
 */
export function sourceOf(document: DocumentNode): string {
  let source = sources.get(document);
  if (source === undefined) sources.set(document, (source = print(document)));
  return source;
}
