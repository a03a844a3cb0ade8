import { readFileSync } from 'node:fs';
import { sectionPath, withSection } from '../../src/modules/readme-section';
import { STATES_SECTION as SECTION } from '../../src/modules/states-diagram';

describe('Request states diagram (docs/rest.md)', () => {
  it('should be the diagram the state table gives (run `npm run docs:states` after changing it)', () => {
    const text = readFileSync(sectionPath(SECTION), 'utf8');
    expect(text).toBe(withSection(text, SECTION));
  });
});
