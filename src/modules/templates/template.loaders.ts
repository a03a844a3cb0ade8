import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Template, TemplateItem } from './template.entities';

export const templateLoaders = {
  templateById: (em: EntityManager) => createByIdLoader(em, Template),
  templateItemsByTemplate: (em: EntityManager) =>
    createChildrenLoader(em, TemplateItem, 'template', { position: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof templateLoaders> {}
}
