import type { ModuleDescriptor } from '../../kernel/module';
import { Activity } from './activity.entities';
import { activityResolvers } from './activity.resolvers';
import { activityRestRows } from './activity.rest';
import { activityConsumer, getActivity } from './activity.service';
import { Migration20261124000001_activity } from './Migration20261124000001_activity';
import { Migration20261129000200_activity_time_order } from './Migration20261129000200_activity_time_order';

export const activityModule: ModuleDescriptor = {
  name: 'activity',
  entities: [Activity],
  migrations: [
    { name: 'Migration20261124000001_activity', class: Migration20261124000001_activity },
    { name: 'Migration20261129000200_activity_time_order', class: Migration20261129000200_activity_time_order },
  ],
  resolvers: activityResolvers,
  restRows: activityRestRows,
  nodes: { Activity: { sql: 'select 1 from activity where id = ? and organization_id = ?', load: getActivity } },
  consumers: [activityConsumer],
};
