import { loadRef, loadRequiredRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { countFields } from '../../kernel/graphql/pagination';
import { payload } from '../../kernel/graphql/payload';
import { bulkSendFailures, createBulkSend, getBulkSend, listBulkSends } from './bulk-send.service';

export const bulkSendResolvers: Resolvers = {
  Query: {
    bulkSend: (_root, { id }, ctx) => getBulkSend(ctx, id),
    bulkSends: (_root, args, ctx) => listBulkSends(ctx, args),
  },
  Mutation: {
    bulkSendCreate: (_root, { input }, ctx) => payload(() => createBulkSend(ctx, input)),
  },
  BulkSend: {
    template: (bulkSend, _args, ctx, info) =>
      bulkSend.template ? loadRef(bulkSend.template, ctx.loaders.templateById, info) : null,
    owner: (bulkSend, _args, ctx, info) => loadRequiredRef(bulkSend.owner, ctx.loaders.userById, info),
    failures: (bulkSend, _args, ctx) => (bulkSend.failed ? bulkSendFailures(ctx.db, bulkSend.id) : []),
  },
  BulkSendConnection: {
    ...countFields,
  },
};
