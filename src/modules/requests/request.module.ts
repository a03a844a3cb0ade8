import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261124000000_review } from './Migration20261124000000_review';
import { findEventRequest } from './request.access';
import { Collaborator, Request } from './request.entities';
import { requestLoaders } from './request.loaders';
import { requestResolvers } from './request.resolvers';
import { renderRequest, requestRestRows } from './request.rest';
import { getRequest } from './request.service';

export const requestsModule: ModuleDescriptor = {
  name: 'requests',
  entities: [Request, Collaborator],
  migrations: [{ name: 'Migration20261124000000_review', class: Migration20261124000000_review }],
  loaders: requestLoaders,
  resolvers: requestResolvers,
  restRows: requestRestRows,
  nodes: { Request: { sql: 'select 1 from request where id = ? and organization_id = ?', load: getRequest } },
  subjects: {
    Request: {
      eventType: 'RequestEvent',
      field: 'request',
      render: renderRequest,
      load: findEventRequest,
    },
  },
};
