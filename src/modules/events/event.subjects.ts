import type { SubjectLoader } from '../../kernel/graphql/subscriptions';
import { RequestItem } from '../items/item.entities';
import { findVisibleRequest } from '../requests/request.access';

/**
 * The record an event is about, as the subscriber's viewer may read it now: null when its request is
 * not visible to it. Deleted records are still found, so deletion events can show what was deleted.
 */
export const loadEventSubject: SubjectLoader = async (ctx, event) => {
  if (!event.requestId) return null;
  const request = await findVisibleRequest(ctx.em, ctx.viewer, event.requestId, { includeDeleted: true });
  if (!request) return null;
  switch (event.subjectType) {
    case 'Request':
      return request;
    case 'RequestItem':
      return ctx.em.findOne(RequestItem, { id: event.subjectId, request: request.id });
    default:
      return null;
  }
};
