import type { Reader } from '../../kernel/db/db';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Document } from './document.entities';

export const documentLoaders = {
  documentsByItem: (db: Reader) => createChildrenLoader(db, Document, 'item', { createdAt: 'asc', id: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof documentLoaders> {}
}
