import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader } from '../../kernel/db/loaders';
import { RequestItem } from './item.entities';

export function createItemLoaders(em: EntityManager) {
  return {
    itemsByRequest: createChildrenLoader(em, RequestItem, 'request', { position: 'asc' }, { deletedAt: null }),
  };
}
