import type { Reader } from '../../kernel/db/db';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Attachment } from './attachment.entities';

export const attachmentLoaders = {
  attachmentsByItem: (db: Reader) => createChildrenLoader(db, Attachment, 'item', { position: 'asc' }),
  // A request's own attachments, not its items'.
  attachmentsByRequest: (db: Reader) => createChildrenLoader(db, Attachment, 'request', { position: 'asc' }, ['item']),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof attachmentLoaders> {}
}
