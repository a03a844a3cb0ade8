import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Template, TemplateItem } from './template.entities';

export const templateLoaders = {
  templateById: (db: Reader) => createByIdLoader(db, Template),
  templateItemsByTemplate: (db: Reader) => createChildrenLoader(db, TemplateItem, 'template', { position: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof templateLoaders> {}
}
