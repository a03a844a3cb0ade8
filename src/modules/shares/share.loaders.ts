import DataLoader from 'dataloader';
import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { ShareRecipient } from './share.entities';
import { filesOfShares, type ShareFileView } from './share.service';

// One statement per relation per operation, whatever the number of shares listed.
export const shareLoaders = {
  recipientsByShare: (db: Reader) => createChildrenLoader(db, ShareRecipient, 'share', { position: 'asc', id: 'asc' }),
  shareRecipientById: (db: Reader) => createByIdLoader(db, ShareRecipient),
  filesByShare: (db: Reader) => new DataLoader<string, ShareFileView[]>((ids) => filesOfShares(db, ids)),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof shareLoaders> {}
}
