import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction } from '../../kernel/db/transaction';
import type { RequestRejectInput } from '../../generated/resolvers-types';
import { InputCheck } from '../../kernel/validation/input-check';
import { requireVisibleRequestForUpdate } from '../requests/request.access';
import type { Request } from '../requests/request.entities';
import { MAX_ITEMS } from '../requests/request.limits';
import { emitRequestEvent, type Ctx } from '../requests/request.service';
import { SUBMITTED_STATES, transition } from '../requests/request.states';
import { RequestItem } from './item.entities';
import { MAX_REJECTION_MESSAGE } from './item.limits';
import { itemTransition } from './item.states';

// The owner's review of a submission (API-DECISIONS, States): verify the request, or reject it with a
// message and the items to redo. Both change the request and its items, so they live with the items.

/**
 * Moves a submitted request to VERIFIED and writes its `request.verified`, last in the transaction;
 * `itemIds` are the items verified with it, for the activity log.
 */
async function settleVerified(tx: EntityManager, ctx: Ctx, request: Request, itemIds: string[]): Promise<void> {
  request.state = transition(request.state, 'verify');
  request.verified = true;
  await emitRequestEvent(tx, ctx, 'request.verified', request, { details: { item_ids: itemIds } });
}

/** Verifies a submitted request: every item not verified yet becomes VERIFIED with it. */
export async function verifyRequest(ctx: Ctx, id: string): Promise<Request> {
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    // Refused before the items are read: from any other state the table says no.
    transition(request.state, 'verify');
    const now = new Date();
    const items = await tx.find(
      RequestItem,
      { request: request.id, deletedAt: null, status: { $ne: 'VERIFIED' } },
      { orderBy: { position: 'asc' } },
    );
    for (const item of items) {
      item.status = itemTransition(item.status, 'verify');
      item.verifiedAt = now;
    }
    await settleVerified(
      tx,
      ctx,
      request,
      items.map((item) => item.id),
    );
    return request;
  });
}

/**
 * After an item's verification: a submitted request whose every item is now verified is verified
 * too (one count, only while the request waits for review).
 */
export async function verifyRequestWhenSettled(tx: EntityManager, ctx: Ctx, request: Request): Promise<void> {
  if (!SUBMITTED_STATES.includes(request.state)) return;
  const open = await tx.count(RequestItem, { request: request.id, deletedAt: null, status: { $ne: 'VERIFIED' } });
  if (open === 0) await settleVerified(tx, ctx, request, []);
}

/**
 * Sends a submitted request back for changes: the named items (by default those not verified) become
 * REJECTED, the rejection is kept on the request for the portal, and the recipients are told (the
 * notifications module's hook hears `request.rejected`).
 */
export async function rejectRequest(ctx: Ctx, id: string, input: RequestRejectInput): Promise<Request> {
  const check = new InputCheck();
  check
    .text(['message'], input.message, { max: MAX_REJECTION_MESSAGE, min: 1, required: true })
    .count(['itemIds'], input.itemIds, { max: MAX_ITEMS });
  input.itemIds?.forEach((itemId, index) => check.uuid(['itemIds', index], itemId));
  check.done();
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const items = await tx.find(
      RequestItem,
      { request: request.id, deletedAt: null },
      { orderBy: { position: 'asc' } },
    );
    const byId = new Map(items.map((item) => [item.id, item]));
    input.itemIds?.forEach((itemId, index) => {
      if (!byId.has(itemId)) check.add(['itemIds', index], 'Names no item of this request', 'NOT_FOUND');
    });
    check.done();
    request.state = transition(request.state, 'reject');
    const named = input.itemIds
      ? [...new Set(input.itemIds)].map((itemId) => byId.get(itemId)!)
      : items.filter((item) => item.status !== 'VERIFIED');
    for (const item of named) {
      item.status = itemTransition(item.status, 'reject');
      item.verifiedAt = null;
    }
    const message = input.message.trim();
    const itemIds = named.map((item) => item.id);
    request.rejected = true;
    request.rejection = { message, itemIds, rejectedAt: new Date().toISOString() };
    await emitRequestEvent(tx, ctx, 'request.rejected', request, { details: { message, item_ids: itemIds } });
    return request;
  });
}
