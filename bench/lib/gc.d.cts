/** A collection's kind: a scavenge, a mark-compact, or a step of incremental marking. */
export type GcKind = 'minor' | 'major' | 'incremental';

export function observeGc(record: (kind: GcKind | undefined, ms: number) => void): void;
