import type { RequestRow } from '../../src/modules/requests/request.entities';
import type { findVisibleRequest, requireVisibleRequestForUpdate } from '../../src/modules/requests/request.access';

// Reads hand out rows, which nothing saves: changing one must fail the type check (`npm test` runs
// tsc over this file); a change is written with `tx.update`, which answers the new row.
type ReadResult = NonNullable<Awaited<ReturnType<typeof findVisibleRequest>>>;
type LockedResult = Awaited<ReturnType<typeof requireVisibleRequestForUpdate>>;

function renameRead(request: ReadResult) {
  // @ts-expect-error a row's fields are read-only
  request.name = 'changed';
  // @ts-expect-error a row's relation is a bare { id }, with no reference to load
  void request.owner.load;
}

function renameLocked(request: LockedResult) {
  // @ts-expect-error a locked row is a row too
  request.name = 'changed';
}

describe('row types', () => {
  it('should hand out read-only rows from reads and locks alike', () => {
    const same = (request: LockedResult): RequestRow => request;
    expect([renameRead, renameLocked, same].every((f) => typeof f === 'function')).toBe(true);
  });
});
