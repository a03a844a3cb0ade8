import { loadRef, loadRequiredRef } from '../../kernel/db/loaders';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { fileFields } from '../files/file.resolvers';
import type { RequestItemRow } from '../items/item.entities';
import { deleteAttachment, getAttachment, listAttachments } from './attachment.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

const itemAttachments = {
  attachments: reads(['id'], (item: RequestItemRow, _args: unknown, ctx: GraphQLContext) =>
    ctx.loaders.attachmentsByItem.load(item.id),
  ),
};

export const attachmentResolvers: Resolvers = {
  Query: {
    attachment: (_root, { id }, ctx) => getAttachment(ctx, id),
    attachments: (_root, args, ctx) => listAttachments(ctx, args),
  },
  Mutation: {
    attachmentDelete: (_root, { id, requestId, itemId }, ctx) =>
      payload(async () => ({ deletedAttachmentId: await deleteAttachment(ctx, id, { requestId, itemId }) })),
  },
  Attachment: {
    ...fileFields,
    owner: (attachment, _args, ctx, info) => loadRequiredRef(attachment.owner, ctx.loaders.userById, info),
    request: (attachment, _args, ctx, info) =>
      attachment.request ? loadRef(attachment.request, ctx.loaders.requestById, info) : null,
    item: async (attachment, _args, ctx) => {
      if (!attachment.item || !attachment.request) return null;
      const items = await ctx.loaders.itemsByRequest.load(attachment.request.id);
      return items.find((item) => item.id === attachment.item!.id) ?? null;
    },
    // An item attachment keeps the spec's path under its item; any other is downloaded by its id.
    downloadUrl: (attachment, _args, ctx) =>
      attachment.item && attachment.request
        ? `${ctx.settings.publicUrl}/requests/${attachment.request.id}/items/${attachment.item.id}/attachments/${attachment.id}/download`
        : `${ctx.settings.publicUrl}/attachments/${attachment.id}/download`,
  },
  AttachmentConnection: {
    ...countFields,
  },
  Request: {
    attachments: (request, _args, ctx) => ctx.loaders.attachmentsByRequest.load(request.id),
  },
  UploadItem: itemAttachments,
  ESignatureItem: itemAttachments,
  QuestionItem: itemAttachments,
};
