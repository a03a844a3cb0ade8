import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader } from '../../kernel/db/loaders';
import { Contract } from './contract.entities';

export function createContractLoaders(em: EntityManager) {
  return {
    contractById: createByIdLoader(em, Contract),
  };
}
