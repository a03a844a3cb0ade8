import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { RequestItem } from './item.entities';

export const itemLoaders = {
  itemsByRequest: (em: EntityManager, organizationId: string) =>
    createChildrenLoader(em, RequestItem, 'request', { position: 'asc' }, ['deletedAt'], organizationId),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof itemLoaders> {}
}
