import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Contract } from './contract.entities';

export const contractLoaders = {
  contractById: (db: Reader) => createByIdLoader(db, Contract),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof contractLoaders> {}
}
