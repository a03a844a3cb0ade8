import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Document } from './document.entities';

export const documentLoaders = {
  documentsByItem: (em: EntityManager) => createChildrenLoader(em, Document, 'item', { createdAt: 'asc', id: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof documentLoaders> {}
}
