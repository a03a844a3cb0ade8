import type { RequestItemRow } from './item.entities';

/** What `percentComplete` reads of an item. */
export const PROGRESS_PROPERTIES: ReadonlySet<string> = new Set(['status', 'isNa', 'required']);

const done = (item: RequestItemRow) => item.status === 'COMPLETE' || item.status === 'VERIFIED' || item.isNa;

/** Share of required items that are done (of all items when none is required), 0 to 100; 0 without items. */
export function percentComplete(items: readonly RequestItemRow[]): number {
  const required = items.filter((item) => item.required);
  const counted = required.length ? required : items;
  if (counted.length === 0) return 0;
  return Math.round((counted.filter(done).length / counted.length) * 10000) / 100;
}
