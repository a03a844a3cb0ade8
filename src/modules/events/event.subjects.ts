import type { SubjectLoader } from '../../kernel/graphql/subscriptions';
import { Contract } from '../contracts/contract.entities';
import { Document } from '../documents/document.entities';
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
    case 'Document':
      return ctx.em.findOne(Document, { id: event.subjectId, request: request.id });
    case 'Contract':
      // Contracts belong to the organization; the signature happened on this visible request.
      return ctx.em.findOne(Contract, { id: event.subjectId, organization: ctx.viewer.organizationId });
  }
};
