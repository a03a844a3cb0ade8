import { loadRequiredRef, selecting } from '../../kernel/db/loaders';
import type { Resolvers, UploadItemResolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import type { RequestItemRow } from './item.entities';
import { percentComplete, PROGRESS_PROPERTIES } from './item.progress';
import { createItem, deleteItem, updateItem, verifyItem } from './item.service';
import { rejectRequest, verifyRequest } from './item.review';
import { reads, resolvesTypeFrom } from '../../kernel/graphql/projection';

const ITEM_TYPE_NAMES = { UPLOAD: 'UploadItem', E_SIGNATURE: 'ESignatureItem', QUESTION: 'QuestionItem' } as const;

export const itemTypeName = (item: RequestItemRow) => ITEM_TYPE_NAMES[item.kind];

// Fields every item type resolves the same way.
const itemFields: UploadItemResolvers = {
  verified: reads(['status'], (item) => item.status === 'VERIFIED'),
  request: reads(['request'], (item, _args, ctx, info) => loadRequiredRef(item.request, ctx.loaders.requestById, info)),
  // Through the request's recipients (also what Request.recipients loads), not by id: one statement
  // serves both, whichever resolves first.
  assignedTo: reads(['assignee', 'request'], async (item, _args, ctx, info) => {
    if (!item.assignee) return null;
    const recipients = await ctx.loaders.recipientsByRequest.load(selecting(item.request.id, info));
    return recipients.find((recipient) => recipient.id === item.assignee!.id) ?? null;
  }),
};

export const itemResolvers: Resolvers = {
  Mutation: {
    itemCreate: (_root, { requestId, input }, ctx) =>
      payload(async () => ({ item: await createItem(ctx, requestId, input) })),
    itemUpdate: (_root, { id, requestId, input }, ctx) =>
      payload(async () => ({ item: await updateItem(ctx, id, requestId, input) })),
    itemDelete: (_root, { id, requestId }, ctx) =>
      payload(async () => ({ deletedItemId: await deleteItem(ctx, id, requestId) })),
    itemVerify: (_root, { id, requestId }, ctx) =>
      payload(async () => ({ item: await verifyItem(ctx, id, requestId) })),
    requestVerify: (_root, { id }, ctx) => payload(async () => ({ request: await verifyRequest(ctx, id) })),
    requestReject: (_root, { id, input }, ctx) =>
      payload(async () => ({ request: await rejectRequest(ctx, id, input) })),
  },
  Request: {
    percentComplete: reads(['id'], (request, _args, ctx) =>
      ctx.loaders.itemsByRequest.load({ id: request.id, properties: PROGRESS_PROPERTIES }).then(percentComplete),
    ),
    items: reads(['id'], (request, _args, ctx, info) => ctx.loaders.itemsByRequest.load(selecting(request.id, info))),
    item: reads(
      ['id'],
      async (request, { id }, ctx, info) =>
        (await ctx.loaders.itemsByRequest.load(selecting(request.id, info))).find((item) => item.id === id) ?? null,
    ),
  },
  RequestItem: {
    __resolveType: resolvesTypeFrom(['kind'], itemTypeName),
  },
  UploadItem: itemFields,
  ESignatureItem: itemFields,
  QuestionItem: { ...itemFields, questionType: reads(['questionType'], (item) => item.questionType ?? 'TEXT') },
};
