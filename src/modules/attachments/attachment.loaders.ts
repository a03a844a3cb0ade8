import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Attachment } from './attachment.entities';

export const attachmentLoaders = {
  attachmentsByItem: (em: EntityManager) => createChildrenLoader(em, Attachment, 'item', { position: 'asc' }),
  // A request's own attachments, not its items'.
  attachmentsByRequest: (em: EntityManager) =>
    createChildrenLoader(em, Attachment, 'request', { position: 'asc' }, ['item']),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof attachmentLoaders> {}
}
