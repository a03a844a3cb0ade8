import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// STYLE.md, one descriptor per module: a child imports its parent, never the reverse (the parent
// asks through an extension point), and the kernel imports no module.

const SRC = join(__dirname, '../../src');
const MODULES = join(SRC, 'modules');
const KERNEL = join(SRC, 'kernel');
// Written by codegen from every module's mappers: it imports modules, so the kernel never imports it.
const GENERATED = join(SRC, 'generated');

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** Every `from '…'` of a file, `import type` and re-exports included. */
const specifiers = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/\bfrom\s+'([^']+)'/g)].map((match) => match[1]);

function moduleEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const folder of readdirSync(MODULES, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const targets = new Set<string>();
    for (const file of tsFiles(join(MODULES, folder.name))) {
      for (const specifier of specifiers(file)) {
        const target = /^\.\.\/([^/.][^/]*)\//.exec(specifier)?.[1];
        if (target && target !== folder.name) targets.add(target);
      }
    }
    edges.set(folder.name, targets);
  }
  return edges;
}

/** One cycle of the graph as `a → b → a`, or null when there is none. */
function findCycle(edges: Map<string, Set<string>>): string | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node].join(' → ');
    state.set(node, 'open');
    path.push(node);
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...edges.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('module import graph', () => {
  it('should find the cycle when module folders import each other', () => {
    const edges = new Map([
      ['items', new Set(['requests'])],
      ['requests', new Set(['identity', 'items'])],
      ['identity', new Set<string>()],
    ]);
    expect(findCycle(edges)).toBe('items → requests → items');
    edges.get('requests')!.delete('items');
    expect(findCycle(edges)).toBeNull();
  });

  it('should have no cycle between the folders of src/modules', () => {
    const cycle = findCycle(moduleEdges());
    if (cycle) throw new Error(`module import cycle: ${cycle}`);
  });

  it('should keep src/kernel free of imports from src/modules and src/generated', () => {
    const offending = tsFiles(KERNEL).flatMap((file) =>
      specifiers(file)
        .filter((specifier) => {
          const target = resolve(dirname(file), specifier);
          return specifier.startsWith('.') && (target.startsWith(MODULES + sep) || target.startsWith(GENERATED + sep));
        })
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});
