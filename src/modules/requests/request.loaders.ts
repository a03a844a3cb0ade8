import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Collaborator, Request } from './request.entities';

// One statement per relation per operation, whatever the number of requests listed.
export const requestLoaders = {
  requestById: (em: EntityManager) => createByIdLoader(em, Request),
  collaboratorsByRequest: (em: EntityManager, organizationId: string) =>
    createChildrenLoader(em, Collaborator, 'request', { position: 'asc' }, [], organizationId),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof requestLoaders> {}
}
