import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader } from '../../kernel/db/loaders';
import { Document } from './document.entities';

export const documentLoaders = {
  documentsByItem: (em: EntityManager) => createChildrenLoader(em, Document, 'item', { createdAt: 'asc', id: 'asc' }),
};
