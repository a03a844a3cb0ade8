import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader } from '../../kernel/db/loaders';
import { StoredFile } from './file.entities';

export const fileLoaders = {
  fileById: (em: EntityManager) => createByIdLoader(em, StoredFile),
};
