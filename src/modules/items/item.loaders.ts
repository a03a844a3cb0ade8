import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader } from '../../kernel/db/loaders';
import { RequestItem } from './item.entities';

export const itemLoaders = {
  itemsByRequest: (em: EntityManager) => createChildrenLoader(em, RequestItem, 'request', { position: 'asc' }, ['deletedAt']),
};
