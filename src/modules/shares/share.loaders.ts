import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { ShareRecipient } from './share.entities';
import { filesOfShares, type ShareFileView } from './share.service';

// One statement per relation per operation, whatever the number of shares listed.
export const shareLoaders = {
  recipientsByShare: (em: EntityManager) =>
    createChildrenLoader(em, ShareRecipient, 'share', { position: 'asc', id: 'asc' }),
  shareRecipientById: (em: EntityManager) => createByIdLoader(em, ShareRecipient),
  filesByShare: (em: EntityManager) => new DataLoader<string, ShareFileView[]>((ids) => filesOfShares(em, ids)),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof shareLoaders> {}
}
