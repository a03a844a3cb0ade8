import { readFileSync } from 'node:fs';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';

/**
 * Splits an `.operations.graphql` file into one document per named operation, each with just the
 * fragments it uses. mercurius caches parsing and JIT compilation per document text, so each REST
 * row must run a document of its own.
 */
export function loadOperations(path: string, ...fragmentFiles: string[]): Record<string, string> {
  const document = parse(readFileSync(path, 'utf8'));
  const fragments = new Map<string, FragmentDefinitionNode>();
  // Fragments may come from other modules' files (a request embeds its items' REST shape).
  for (const file of [path, ...fragmentFiles]) {
    for (const definition of parse(readFileSync(file, 'utf8')).definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
  }
  const spreadsOf = (node: DefinitionNode): string[] => {
    const names: string[] = [];
    visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
    return names;
  };
  const operations: Record<string, string> = {};
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || !definition.name) continue;
    const used = new Set<string>();
    const pending = spreadsOf(definition);
    while (pending.length) {
      const name = pending.pop()!;
      if (used.has(name)) continue;
      const fragment = fragments.get(name);
      if (!fragment) throw new Error(`${path}: fragment ${name} is not defined`);
      used.add(name);
      pending.push(...spreadsOf(fragment));
    }
    const definitions = [definition, ...[...used].sort().map((name) => fragments.get(name)!)];
    operations[definition.name.value] = print({ kind: Kind.DOCUMENT, definitions });
  }
  return operations;
}
