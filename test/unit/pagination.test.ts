import { AppError } from '../../src/kernel/errors/app-error';
import { checkPageArgs, decodeCursor, encodeCursor } from '../../src/kernel/graphql/pagination';
import { MAX_PAGE_SIZE } from '../../src/kernel/limits';

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('keyset cursors', () => {
  it('should give back the sort value and id a cursor was made from, dates as ISO strings', () => {
    expect(decodeCursor(encodeCursor(new Date('2026-11-21T09:30:00.123Z'), ID), 'after')).toEqual([
      '2026-11-21T09:30:00.123Z',
      ID,
    ]);
    expect(decodeCursor(encodeCursor(42, ID), 'after')).toEqual([42, ID]);
    expect(decodeCursor(encodeCursor('Zoë, "quoted"', ID), 'before')).toEqual(['Zoë, "quoted"', ID]);
  });

  it('should be URL-safe text', () => {
    expect(encodeCursor('??>>~~', ID)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64 JSON', 'bm9wZQ'],
    ['empty', ''],
    ['a JSON object', Buffer.from(JSON.stringify({ v: 1, id: ID })).toString('base64url')],
    ['three elements', Buffer.from(JSON.stringify([1, ID, 'x'])).toString('base64url')],
    ['an id that is not a UUID', Buffer.from(JSON.stringify([1, 'abc'])).toString('base64url')],
    ['a sort value that is an object', Buffer.from(JSON.stringify([{ a: 1 }, ID])).toString('base64url')],
  ])('should refuse a cursor that is %s, naming the argument', (_what, cursor) => {
    const error = refusal(() => decodeCursor(cursor, 'before'));
    expect(error).toMatchObject({
      code: 'VALIDATION',
      userErrors: [{ field: ['before'], message: 'before is not a cursor this list gave out', code: 'INVALID' }],
    });
  });
});

describe('page arguments', () => {
  it('should take sizes from 1 to the maximum, and absent or null ones', () => {
    for (const args of [{ first: 1 }, { first: MAX_PAGE_SIZE }, { last: 1 }, { first: null, last: null }, {}])
      expect(() => checkPageArgs(args)).not.toThrow();
  });

  it.each([
    [{ first: 0 }, 'first'],
    [{ first: MAX_PAGE_SIZE + 1 }, 'first'],
    [{ last: -1 }, 'last'],
  ])('should refuse %j as OUT_OF_RANGE on %s', (args, field) => {
    expect(refusal(() => checkPageArgs(args)).userErrors).toEqual([
      { field: [field], message: `${field} must be between 1 and ${MAX_PAGE_SIZE}`, code: 'OUT_OF_RANGE' },
    ]);
  });

  it('should refuse first and last together', () => {
    expect(refusal(() => checkPageArgs({ first: 2, last: 2 })).userErrors).toEqual([
      { field: ['last'], message: 'give first or last, not both', code: 'INVALID' },
    ]);
  });
});
