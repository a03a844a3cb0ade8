import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader } from '../../kernel/db/loaders';
import { Template, TemplateItem } from './template.entities';

export function createTemplateLoaders(em: EntityManager) {
  return {
    templateById: createByIdLoader(em, Template),
    templateItemsByTemplate: createChildrenLoader(em, TemplateItem, 'template', { position: 'asc' }),
  };
}
