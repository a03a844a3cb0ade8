import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Contract } from './contract.entities';

export const contractLoaders = {
  contractById: (em: EntityManager) => createByIdLoader(em, Contract),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof contractLoaders> {}
}
