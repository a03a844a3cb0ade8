import { countFields } from '../../kernel/graphql/pagination';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { linkToken, recipientPassword } from '../recipients/recipient-link';
import {
  createShare,
  deleteShare,
  getShare,
  listDownloads,
  listShares,
  sendShare,
  shareLink,
  updateShare,
} from './share.service';

export const shareResolvers: Resolvers = {
  Query: {
    share: (_root, { id }, ctx) => getShare(ctx, id),
    shares: (_root, args, ctx) => listShares(ctx, args),
  },
  Mutation: {
    shareCreate: (_root, { input }, ctx) => payload(async () => ({ share: await createShare(ctx, input) })),
    shareUpdate: (_root, { id, input }, ctx) => payload(async () => ({ share: await updateShare(ctx, id, input) })),
    shareSend: (_root, { id }, ctx) => payload(async () => ({ share: await sendShare(ctx, id) })),
    shareDelete: (_root, { id }, ctx) => payload(async () => ({ deletedShareId: await deleteShare(ctx, id) })),
  },
  Share: {
    owner: async (share, _args, ctx) => (await ctx.loaders.userById.load(share.owner.id))!,
    recipients: (share, _args, ctx) => ctx.loaders.recipientsByShare.load(share.id),
    files: (share, _args, ctx) => ctx.loaders.filesByShare.load(share.id),
    downloads: (share, args, ctx) => listDownloads(ctx, share, args),
  },
  ShareRecipient: {
    link: (recipient, _args, ctx) =>
      shareLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce)),
    password: (recipient, _args, ctx) => recipientPassword(ctx.settings.secret, recipient.id, recipient.linkNonce),
  },
  ShareDownload: {
    recipient: async (download, _args, ctx) => (await ctx.loaders.shareRecipientById.load(download.recipient.id))!,
    file: async (download, _args, ctx) => {
      if (!download.shareFile) return null;
      const files = await ctx.loaders.filesByShare.load(download.share.id);
      return files.find((file) => file.id === download.shareFile!.id) ?? null;
    },
  },
  ShareConnection: {
    ...countFields,
  },
  ShareDownloadConnection: {
    ...countFields,
  },
};
