import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Collaborator, Request } from './request.entities';

// One statement per relation per operation, whatever the number of requests listed.
export const requestLoaders = {
  requestById: (db: Reader) => createByIdLoader(db, Request),
  collaboratorsByRequest: (db: Reader, organizationId: string) =>
    createChildrenLoader(db, Collaborator, 'request', { position: 'asc' }, [], organizationId),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof requestLoaders> {}
}
