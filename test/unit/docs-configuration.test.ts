import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_SCHEMA } from '../../src/config/config';

// The configuration table of docs/operations.md is written by hand (its cells say more than the schema's
// descriptions), so this test holds it to the schema: every variable the service reads has a row, and
// every row names a variable it reads.

/** Variables with a row that are not the service's own: read by Node or by the tests. */
const NOT_IN_SCHEMA = ['NODE_ENV', 'TEST_PG_PORT'];

describe('Configuration table (docs/operations.md)', () => {
  it('should have a row for every environment variable the service reads, and no other', () => {
    const text = readFileSync(join(__dirname, '../../docs/operations.md'), 'utf8');
    const table = text.slice(
      text.indexOf('\n## Configuration\n'),
      text.indexOf('\n## ', text.indexOf('\n## Configuration\n') + 1),
    );
    const rows = table.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.flatMap((row) =>
      [...row.split(' | ')[0].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]),
    );
    const read = Object.keys(ENV_SCHEMA.properties);
    expect({
      missing: read.filter((name) => !documented.includes(name)),
      unknown: documented.filter((name) => !read.includes(name) && !NOT_IN_SCHEMA.includes(name)),
    }).toEqual({ missing: [], unknown: [] });
  });
});
