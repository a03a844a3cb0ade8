import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader } from '../../kernel/db/loaders';
import { Document } from './document.entities';

export function createDocumentLoaders(em: EntityManager) {
  return {
    documentsByItem: createChildrenLoader(em, Document, 'item', { createdAt: 'asc', id: 'asc' }),
  };
}
