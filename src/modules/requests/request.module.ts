import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261124000000_review } from './Migration20261124000000_review';
import { Migration20261128000000_request_events } from './Migration20261128000000_request_events';
import { findEventRequest } from './request.access';
import { Collaborator, Request } from './request.entities';
import { requestLoaders } from './request.loaders';
import { requestResolvers } from './request.resolvers';
import { requestRestRows } from './request.rest';
import { getRequest } from './request.service';
import { requestSubjectView } from './request.view';

export const requestsModule: ModuleDescriptor = {
  name: 'requests',
  entities: [Request, Collaborator],
  migrations: [
    { name: 'Migration20261124000000_review', class: Migration20261124000000_review },
    { name: 'Migration20261128000000_request_events', class: Migration20261128000000_request_events },
  ],
  loaders: requestLoaders,
  resolvers: requestResolvers,
  restRows: requestRestRows,
  nodes: { Request: { sql: 'select 1 from request where id = ? and organization_id = ?', load: getRequest } },
  subjects: {
    Request: {
      eventType: 'RequestEvent',
      field: 'request',
      view: requestSubjectView,
      load: findEventRequest,
    },
  },
};
