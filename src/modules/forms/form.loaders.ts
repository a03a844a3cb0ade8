import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Form } from './form.entities';

export const formLoaders = {
  formById: (db: Reader) => createByIdLoader(db, Form),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof formLoaders> {}
}
