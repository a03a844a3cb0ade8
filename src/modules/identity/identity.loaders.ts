import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Organization, Team, User } from './identity.entities';

export const identityLoaders = {
  userById: (db: Reader) => createByIdLoader(db, User),
  teamById: (db: Reader) => createByIdLoader(db, Team),
  organizationById: (db: Reader) => createByIdLoader(db, Organization),
  teamMembers: (db: Reader) => createChildrenLoader(db, User, 'team', { email: 'asc' }),
  teamsByOrganization: (db: Reader) => createChildrenLoader(db, Team, 'organization', { name: 'asc', id: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof identityLoaders> {}
}
