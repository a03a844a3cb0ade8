import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Parts of the README are written from the code they describe so that they cannot drift from it:
// a `docs:…` script rewrites its section, and a unit test fails while the section is stale.

export const README_PATH = join(__dirname, '../../README.md');

export type ReadmeSection = {
  /** What the script's output calls it: `limits table`. */
  name: string;
  begin: string;
  end: string;
  render: () => string;
};

/** `readme` with the text between the section's markers replaced by what the section renders now. */
export function withSection(readme: string, section: ReadmeSection): string {
  const begin = readme.indexOf(section.begin);
  const end = readme.indexOf(section.end);
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${section.begin} … ${section.end}`);
  return `${readme.slice(0, begin + section.begin.length)}\n${section.render()}\n${readme.slice(end)}`;
}

/** A `docs:…` script's work: rewrites the section in README.md if it is stale, and says which. */
export function writeSection(section: ReadmeSection): void {
  const readme = readFileSync(README_PATH, 'utf8');
  const updated = withSection(readme, section);
  if (updated !== readme) writeFileSync(README_PATH, updated);
  process.stdout.write(`README.md ${section.name}: ${updated === readme ? 'up to date' : 'rewritten'}\n`);
}
