import type { ModuleDescriptor } from '../../kernel/module';
import { isAdmin } from '../identity/viewer';
import { Migration20261123000000_notifications } from './Migration20261123000000_notifications';
import { Migration20261125000000_timed_kinds } from './Migration20261125000000_timed_kinds';
import { Migration20261126000000_share_kind } from './Migration20261126000000_share_kind';
import { Migration20261202000000_sms_delivery } from './Migration20261202000000_sms_delivery';
import { Notification } from './notification.entities';
import { notificationLoaders } from './notification.loaders';
import { notificationResolvers } from './notification.resolvers';
import { notificationRestRows } from './notification.rest';
import { getNotification, notificationsConsumer } from './notification.service';
import { twilioStatusRoute } from './notification.twilio';

export const notificationsModule: ModuleDescriptor = {
  name: 'notifications',
  entities: [Notification],
  migrations: [
    { name: 'Migration20261123000000_notifications', class: Migration20261123000000_notifications },
    { name: 'Migration20261125000000_timed_kinds', class: Migration20261125000000_timed_kinds },
    { name: 'Migration20261126000000_share_kind', class: Migration20261126000000_share_kind },
    { name: 'Migration20261202000000_sms_delivery', class: Migration20261202000000_sms_delivery },
  ],
  loaders: notificationLoaders,
  resolvers: notificationResolvers,
  restRows: notificationRestRows,
  // Notifications are the ADMIN's: to a USER they do not exist.
  nodes: {
    Notification: {
      sql: 'select 1 from notification where id = ? and organization_id = ?',
      load: async (ctx, id) => (isAdmin(ctx.viewer) ? getNotification(ctx, id) : null),
    },
  },
  consumers: [notificationsConsumer],
  routes: async (scope) => twilioStatusRoute(scope),
};
