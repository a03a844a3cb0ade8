import type { ModuleDescriptor } from '../../kernel/module';
import { ApiKey, Organization, Team, User } from './identity.entities';
import { identityLoaders } from './identity.loaders';
import { identityResolvers } from './identity.resolvers';
import { identityRestRows } from './identity.rest';
import { getApiKey, getOrganization, getTeam, getUser } from './identity.service';

export const identityModule: ModuleDescriptor = {
  name: 'identity',
  entities: [Organization, Team, User, ApiKey],
  loaders: identityLoaders,
  resolvers: identityResolvers,
  restRows: identityRestRows,
  nodes: {
    // The caller's organization is the only one it may see.
    Organization: { sql: 'select 1 from organization where id = ? and id = ?', load: (ctx) => getOrganization(ctx) },
    User: { sql: 'select 1 from app_user where id = ? and organization_id = ?', load: getUser },
    Team: { sql: 'select 1 from team where id = ? and organization_id = ?', load: getTeam },
    ApiKey: {
      sql: 'select 1 from api_key k join app_user u on u.id = k.user_id where k.id = ? and u.organization_id = ?',
      load: getApiKey,
    },
  },
};
