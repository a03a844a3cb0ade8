import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader } from '../../kernel/db/loaders';
import { Contract } from './contract.entities';

export const contractLoaders = {
  contractById: (em: EntityManager) => createByIdLoader(em, Contract),
};
