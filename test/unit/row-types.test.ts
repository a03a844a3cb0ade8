import type { Request, RequestRow } from '../../src/modules/requests/request.entities';
import type { findVisibleRequest, findVisibleRequestForUpdate } from '../../src/modules/requests/request.access';

// Read paths hand out rows, which nothing saves: changing one must fail the type check (`npm test`
// runs tsc over this file), while a `…ForUpdate` lookup hands out an entity the flush writes.
type ReadResult = NonNullable<Awaited<ReturnType<typeof findVisibleRequest>>>;
type WriteResult = NonNullable<Awaited<ReturnType<typeof findVisibleRequestForUpdate>>>;

function renameRead(request: ReadResult) {
  // @ts-expect-error a row's fields are read-only
  request.name = 'changed';
  // @ts-expect-error a row's relation is a bare { id }, with no reference to load
  void request.owner.load;
}

function renameWritten(request: WriteResult) {
  request.name = 'changed';
}

describe('row types', () => {
  it('should read rows and write entities, and let an entity stand where a row is read', () => {
    const asRow = (request: Request): RequestRow => request;
    expect([renameRead, renameWritten, asRow].every((f) => typeof f === 'function')).toBe(true);
  });
});
