import type { Reader } from '../../kernel/db/db';
import type { SharedCaches } from '../../kernel/db/shared-cache';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Organization, Team, User } from './identity.entities';

export const identityLoaders = {
  // Users change rarely and are read by most documents (owners, collaborators): from the instance's
  // cache of app_user, which any change to the table empties (kernel/db/shared-cache.ts).
  userById: (db: Reader, _organizationId: string, _loaders: unknown, caches: SharedCaches | undefined) =>
    createByIdLoader(db, User, caches?.of('app_user')),
  teamById: (db: Reader) => createByIdLoader(db, Team),
  organizationById: (db: Reader) => createByIdLoader(db, Organization),
  teamMembers: (db: Reader) => createChildrenLoader(db, User, 'team', { email: 'asc' }),
  teamsByOrganization: (db: Reader) => createChildrenLoader(db, Team, 'organization', { name: 'asc', id: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof identityLoaders> {}
}
