import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { connectCloudStorage, disconnectCloudStorage, listCloudStorage } from './cloud-storage.service';

export const cloudStorageResolvers: Resolvers = {
  Query: {
    cloudStorageProviders: (_root, _args, ctx) => listCloudStorage(ctx),
  },
  CloudStorageProvider: {
    bucket: (view) => view.connection?.bucket ?? null,
    region: (view) => view.connection?.region ?? null,
    endpoint: (view) => view.connection?.endpoint ?? null,
    forcePathStyle: (view) => view.connection?.forcePathStyle ?? null,
    connectedAt: (view) => view.connection?.connectedAt ?? null,
  },
  Mutation: {
    cloudStorageConnect: (_root, { provider, input }, ctx) =>
      payload(async () => ({ cloudStorageProvider: await connectCloudStorage(ctx, provider, input) })),
    cloudStorageDisconnect: (_root, { provider }, ctx) =>
      payload(async () => ({ cloudStorageProvider: await disconnectCloudStorage(ctx, provider) })),
  },
};
