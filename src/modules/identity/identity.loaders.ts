import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader } from '../../kernel/db/loaders';
import { Organization, Team, User } from './identity.entities';

export function createIdentityLoaders(em: EntityManager) {
  return {
    userById: createByIdLoader(em, User),
    teamById: createByIdLoader(em, Team),
    organizationById: createByIdLoader(em, Organization),
    teamMembers: createChildrenLoader(em, User, 'team', { email: 'asc' }),
  };
}
