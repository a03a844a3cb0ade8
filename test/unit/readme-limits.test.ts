import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS_SECTION as SECTION } from '../../src/modules/limits-table';
import { sectionPath, withSection } from '../../src/modules/readme-section';

const src = join(__dirname, '../../src');
const limitsFiles = [
  join(src, 'kernel/limits.ts'),
  ...readdirSync(join(src, 'modules'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.limits.ts'))
    .map((path) => join(src, 'modules', path)),
];

describe('Limits table (docs/operations.md)', () => {
  it('should be the table the limits constants give (run `npm run docs:limits` after changing one)', () => {
    const text = readFileSync(sectionPath(SECTION), 'utf8');
    expect(text).toBe(withSection(text, SECTION));
  });

  it('should show every limits constant', () => {
    const table = readFileSync(join(src, 'modules/limits-table.ts'), 'utf8');
    const constants = limitsFiles.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^export const (\w+)/gm)].map((m) => m[1]),
    );
    expect(constants.length).toBeGreaterThan(40);
    expect(constants.filter((name) => !new RegExp(`\\b${name}\\b`).test(table))).toEqual([]);
  });
});
