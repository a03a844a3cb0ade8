import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Parts of the docs are written from the code they describe so that they cannot drift from it:
// a `docs:…` script rewrites its section, and a unit test fails while the section is stale.

const ROOT = join(__dirname, '../..');

export type ReadmeSection = {
  /** What the script's output calls it: `limits table`. */
  name: string;
  /** The file that holds it: `docs/operations.md`. */
  file: string;
  begin: string;
  end: string;
  render: () => string;
};

/** The section's file, absolute. */
export const sectionPath = (section: ReadmeSection): string => join(ROOT, section.file);

/** `text` with the text between the section's markers replaced by what the section renders now. */
export function withSection(text: string, section: ReadmeSection): string {
  const begin = text.indexOf(section.begin);
  const end = text.indexOf(section.end);
  if (begin < 0 || end < begin) throw new Error(`${section.file} lacks the markers ${section.begin} … ${section.end}`);
  return `${text.slice(0, begin + section.begin.length)}\n${section.render()}\n${text.slice(end)}`;
}

/** A `docs:…` script's work: rewrites the section in its file if it is stale, and says which. */
export function writeSection(section: ReadmeSection): void {
  const path = sectionPath(section);
  const text = readFileSync(path, 'utf8');
  const updated = withSection(text, section);
  if (updated !== text) writeFileSync(path, updated);
  process.stdout.write(`${relative(ROOT, path)} ${section.name}: ${updated === text ? 'up to date' : 'rewritten'}\n`);
}
