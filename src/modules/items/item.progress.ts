// What "done" and "complete" mean, in one place: the portal's "N of M done", `percent_complete`, the
// state a submission moves to and its `request.completed`, what verifying a request verifies, and the
// dashboard (bundled into its page: this file imports nothing at run time).

/** What progress reads of an item. */
export const PROGRESS_PROPERTIES: ReadonlySet<string> = new Set(['status', 'isNa', 'required']);

type Progressing = { status: string; isNa: boolean; required: boolean };

/** Done: something received (uploaded, answered, signed) and maybe accepted, or marked not applicable. */
export const isDone = (item: { status: string; isNa: boolean }): boolean =>
  item.isNa || item.status === 'COMPLETE' || item.status === 'VERIFIED';

export type Progress = { done: number; total: number; requiredDone: number; required: number };

export function progressOf(items: readonly Progressing[]): Progress {
  // Counted in one pass, without intermediate arrays: every request of a list page computes it.
  const progress = { done: 0, total: items.length, requiredDone: 0, required: 0 };
  for (const item of items) {
    const done = isDone(item);
    if (done) progress.done++;
    if (item.required) {
      progress.required++;
      if (done) progress.requiredDone++;
    }
  }
  return progress;
}

/** Complete (API-DECISIONS, States): every item done, optional ones too; COMPLETE_AND_SUBMITTED, request.completed. */
export const isComplete = (progress: Progress): boolean => progress.done === progress.total;

/** Share of required items that are done (of all items when none is required), 0 to 100; 0 without items. */
export function percentComplete(items: readonly Progressing[]): number {
  const { done, total, requiredDone, required } = progressOf(items);
  const counted = required || total;
  if (counted === 0) return 0;
  return Math.round(((required ? requiredDone : done) / counted) * 10000) / 100;
}
