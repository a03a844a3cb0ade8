import { readFileSync } from 'node:fs';
import { README_PATH, withSection } from '../../src/modules/readme-section';
import { STATES_SECTION } from '../../src/modules/states-diagram';

describe('README Request states diagram', () => {
  it('should be the diagram the state table gives (run `npm run docs:states` after changing it)', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toBe(withSection(readme, STATES_SECTION));
  });
});
