import { percentComplete } from '../../src/modules/items/item.progress';
import type { RequestItemRow } from '../../src/modules/items/item.entities';

const item = (status: string, required: boolean, isNa = false) =>
  ({ status, required, isNa }) as unknown as RequestItemRow;

describe("a request's percentComplete", () => {
  it('should be 0 without items', () => {
    expect(percentComplete([])).toBe(0);
  });

  it('should count the required items only when some are required', () => {
    expect(
      percentComplete([
        item('COMPLETE', true),
        item('INCOMPLETE', true),
        item('COMPLETE', false),
        item('COMPLETE', false),
      ]),
    ).toBe(50);
  });

  it('should count every item when none is required', () => {
    expect(percentComplete([item('COMPLETE', false), item('INCOMPLETE', false), item('INCOMPLETE', false)])).toBe(
      33.33,
    );
  });

  it('should take verified and not-applicable items as done, rejected ones as not', () => {
    expect(percentComplete([item('VERIFIED', true), item('INCOMPLETE', true, true), item('REJECTED', true)])).toBe(
      66.67,
    );
  });
});
