import { nextState, type StateTable } from '../../kernel/state-table';
import type { ItemStatus } from './item.enums';

// API-DECISIONS "States", item status: INCOMPLETE → COMPLETE → VERIFIED, REJECTED by a rejection,
// COMPLETE again when redone.

export const ITEM_TRIGGERS = ['complete', 'undo', 'verify', 'reject'] as const;
export type ItemTrigger = (typeof ITEM_TRIGGERS)[number];

export const ITEM_STATUS_TABLE = {
  kind: 'item status',
  moves: {
    // Uploaded, answered, signed or marked not applicable; a second document leaves it COMPLETE. A
    // verified item is settled: only a rejection reopens it.
    complete: { from: ['INCOMPLETE', 'COMPLETE', 'REJECTED'], to: 'COMPLETE' },
    // The recipient took back what completed it (its only document, a not-applicable mark).
    undo: { from: ['COMPLETE'], to: 'INCOMPLETE' },
    // Spec section 3 verifies any item that exists: the owner may accept what came another way.
    verify: { from: ['INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED'], to: 'VERIFIED' },
    // A rejection names its items, verified ones included (by default those not verified).
    reject: { from: ['INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED'], to: 'REJECTED' },
  },
} satisfies StateTable<ItemStatus, ItemTrigger, void>;

/** The status `trigger` gives an item, or a 422 `invalid_state`. */
export const itemTransition = (status: ItemStatus, trigger: ItemTrigger): ItemStatus =>
  nextState<ItemStatus, ItemTrigger, void>(ITEM_STATUS_TABLE, status, trigger, undefined);
