import type { Reader } from '../../kernel/db/db';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { RequestItem } from './item.entities';

export const itemLoaders = {
  itemsByRequest: (db: Reader, organizationId: string) =>
    createChildrenLoader(db, RequestItem, 'request', { position: 'asc' }, ['deletedAt'], organizationId),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof itemLoaders> {}
}
