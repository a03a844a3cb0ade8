import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SCHEMA_DIR = resolve(__dirname, '../../../schema');

/** The schema's SDL: `base.graphql` first (it declares the root types), then the modules by name. */
export function loadSdl(dir: string = SCHEMA_DIR): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort((a, b) => (a === 'base.graphql' ? -1 : b === 'base.graphql' ? 1 : a.localeCompare(b)));
  return files.map((f) => `# ${f}\n${readFileSync(join(dir, f), 'utf8')}`).join('\n');
}
