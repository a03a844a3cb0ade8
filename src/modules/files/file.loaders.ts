import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { StoredFile } from './file.entities';

export const fileLoaders = {
  fileById: (db: Reader) => createByIdLoader(db, StoredFile),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof fileLoaders> {}
}
