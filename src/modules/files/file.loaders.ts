import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader } from '../../kernel/db/loaders';
import { StoredFile } from './file.entities';

export function createFileLoaders(em: EntityManager) {
  return {
    fileById: createByIdLoader(em, StoredFile),
  };
}
