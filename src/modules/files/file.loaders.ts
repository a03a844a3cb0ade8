import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { StoredFile } from './file.entities';

export const fileLoaders = {
  fileById: (em: EntityManager) => createByIdLoader(em, StoredFile),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof fileLoaders> {}
}
