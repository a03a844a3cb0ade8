import type { Tx } from '../../kernel/db/db';
import type { RequestRejectInput } from '../../generated/resolvers-types';
import { InputCheck } from '../../kernel/validation/input-check';
import { requireVisibleRequestForUpdate } from '../requests/request.access';
import { Request, type RequestRow } from '../requests/request.entities';
import { MAX_ITEMS } from '../requests/request.limits';
import { emitRequestEvent, type Ctx } from '../requests/request.service';
import { SUBMITTED_STATES, transition } from '../requests/request.states';
import { RequestItem, type RequestItemRow } from './item.entities';
import { MAX_REJECTION_MESSAGE } from './item.limits';
import { isDone } from './item.progress';
import { itemTransition } from './item.states';

// The owner's review of a submission (API-DECISIONS, States): verify the request, or reject it with a
// message and the items to redo. Both change the request and its items, so they live with the items.

/**
 * Moves a submitted request to VERIFIED and writes its `request.verified`, last in the transaction;
 * `itemIds` are the items verified with it, for the activity log.
 */
async function settleVerified(tx: Tx, ctx: Ctx, request: RequestRow, itemIds: string[]): Promise<RequestRow> {
  const verified = await tx.update(Request, request.id, { state: transition(request.state, 'verify'), verified: true });
  await emitRequestEvent(tx, ctx, 'request.verified', verified, { details: { item_ids: itemIds } });
  return verified;
}

/** Moves `items` on by `event` (each must allow it), in one statement whatever their number. */
async function setStatus(
  tx: Tx,
  items: readonly RequestItemRow[],
  event: 'verify' | 'reject',
  verifiedAt: Date | null,
): Promise<void> {
  if (items.length === 0) return;
  const [status] = items.map((item) => itemTransition(item.status, event));
  await tx.execute('update request_item set status = ?, verified_at = ?, updated_at = ? where id = any(?::uuid[])', [
    status,
    verifiedAt,
    new Date(),
    items.map((item) => item.id),
  ]);
}

/**
 * Verifies a submitted request: every item done and not verified yet becomes VERIFIED with it; one
 * that received nothing stays as it is (verifyItem accepts what came another way).
 */
export async function verifyRequest(ctx: Ctx, id: string): Promise<RequestRow> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    // Refused before the items are read: from any other state the table says no.
    transition(request.state, 'verify');
    const items = (
      await tx.records(
        RequestItem,
        `select * from request_item where request_id = ? and deleted_at is null and status <> 'VERIFIED' order by position`,
        [request.id],
      )
    ).filter(isDone);
    await setStatus(tx, items, 'verify', new Date());
    return settleVerified(
      tx,
      ctx,
      request,
      items.map((item) => item.id),
    );
  });
}

/**
 * After an item's verification: a submitted request whose every item is now verified is verified
 * too (one count, only while the request waits for review).
 */
export async function verifyRequestWhenSettled(tx: Tx, ctx: Ctx, request: RequestRow): Promise<void> {
  if (!SUBMITTED_STATES.includes(request.state)) return;
  const [{ open }] = await tx.rows<{ open: number }>(
    `select count(*)::int as open from request_item where request_id = ? and deleted_at is null and status <> 'VERIFIED'`,
    [request.id],
  );
  if (open === 0) await settleVerified(tx, ctx, request, []);
}

/**
 * Sends a submitted request back for changes: the named items (by default those not verified) become
 * REJECTED, the rejection is kept on the request for the portal, and the recipients are told (the
 * notifications module's hook hears `request.rejected`).
 */
export async function rejectRequest(ctx: Ctx, id: string, input: RequestRejectInput): Promise<RequestRow> {
  const check = new InputCheck();
  check
    .text(['message'], input.message, { max: MAX_REJECTION_MESSAGE, min: 1, required: true })
    .count(['itemIds'], input.itemIds, { max: MAX_ITEMS });
  input.itemIds?.forEach((itemId, index) => check.uuid(['itemIds', index], itemId));
  check.done();
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const items = await tx.records(
      RequestItem,
      'select * from request_item where request_id = ? and deleted_at is null order by position',
      [request.id],
    );
    const byId = new Map(items.map((item) => [item.id, item]));
    input.itemIds?.forEach((itemId, index) => {
      if (!byId.has(itemId)) check.add(['itemIds', index], 'Names no item of this request', 'NOT_FOUND');
    });
    check.done();
    const state = transition(request.state, 'reject');
    const named = input.itemIds
      ? [...new Set(input.itemIds)].map((itemId) => byId.get(itemId)!)
      : items.filter((item) => item.status !== 'VERIFIED');
    await setStatus(tx, named, 'reject', null);
    const message = input.message.trim();
    const itemIds = named.map((item) => item.id);
    const rejected = await tx.update(Request, request.id, {
      state,
      rejected: true,
      rejection: { message, itemIds, rejectedAt: new Date().toISOString() },
    });
    await emitRequestEvent(tx, ctx, 'request.rejected', rejected, { details: { message, item_ids: itemIds } });
    return rejected;
  });
}
