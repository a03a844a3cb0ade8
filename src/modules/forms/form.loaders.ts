import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Form } from './form.entities';

export const formLoaders = {
  formById: (em: EntityManager) => createByIdLoader(em, Form),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof formLoaders> {}
}
