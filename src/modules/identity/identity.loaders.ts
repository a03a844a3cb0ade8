import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Organization, Team, User } from './identity.entities';

export const identityLoaders = {
  userById: (em: EntityManager) => createByIdLoader(em, User),
  teamById: (em: EntityManager) => createByIdLoader(em, Team),
  organizationById: (em: EntityManager) => createByIdLoader(em, Organization),
  teamMembers: (em: EntityManager) => createChildrenLoader(em, User, 'team', { email: 'asc' }),
  teamsByOrganization: (em: EntityManager) =>
    createChildrenLoader(em, Team, 'organization', { name: 'asc', id: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof identityLoaders> {}
}
