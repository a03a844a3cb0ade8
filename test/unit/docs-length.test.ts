import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The README is the five-minute entry and bench/README.md the latest results: history goes to CHANGELOG.md.
const lines = (file: string) =>
  readFileSync(join(__dirname, '..', '..', file), 'utf8')
    .trimEnd()
    .split('\n').length;

describe('the entry documents', () => {
  it('should keep README.md within 250 lines and bench/README.md within 300', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(250);
    expect(lines('bench/README.md')).toBeLessThanOrEqual(300);
  });
});
