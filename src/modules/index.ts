import { foldModules } from '../kernel/module';
import { activityModule } from './activity/activity.module';
import { bulkSendsModule } from './bulk-sends/bulk-send.module';
import { attachmentsModule } from './attachments/attachment.module';
import { cloudStorageModule } from './cloud-storage/cloud-storage.module';
import { consoleModule } from './console/console.module';
import { contractsModule } from './contracts/contract.module';
import { dashboardModule } from './dashboard/dashboard.module';
import { documentsModule } from './documents/document.module';
import { eventsModule } from './events/event.module';
import { filesModule } from './files/file.module';
import { formsModule } from './forms/form.module';
import { identityModule } from './identity/identity.module';
import { itemsModule } from './items/item.module';
import { MIGRATIONS } from './migrations';
import { HTTP_EDGE_MIGRATIONS } from '../kernel/http/edge-store';
import { EVENT_CONSUMER_MIGRATIONS } from '../kernel/events/consumers';
import { organizationsModule } from './organizations/organization.module';
import { notificationsModule } from './notifications/notification.module';
import { portalModule } from './portal/portal.module';
import { recipientsModule } from './recipients/recipient.module';
import { requestsModule } from './requests/request.module';
import { scheduleModule } from './schedule/schedule.module';
import { sessionsModule } from './sessions/session.module';
import { sharesModule } from './shares/share.module';
import { signingModule } from './signing/signing.module';
import { templatesModule } from './templates/template.module';
import { webhooksModule } from './webhooks/webhook.module';

/**
 * Every module of the service, folded once: adding a module is adding its descriptor here. Listed bottom
 * to top (a module imports only those before it), which is also the order their contributions run in.
 */
export const MODULES = foldModules([
  { name: 'schema history', migrations: MIGRATIONS },
  { name: 'http edge', migrations: HTTP_EDGE_MIGRATIONS },
  { name: 'event consumers', migrations: EVENT_CONSUMER_MIGRATIONS },
  identityModule,
  filesModule,
  eventsModule,
  requestsModule,
  recipientsModule,
  organizationsModule,
  contractsModule,
  formsModule,
  signingModule,
  itemsModule,
  templatesModule,
  attachmentsModule,
  documentsModule,
  webhooksModule,
  notificationsModule,
  activityModule,
  portalModule,
  sessionsModule,
  scheduleModule,
  sharesModule,
  dashboardModule,
  consoleModule,
  cloudStorageModule,
  bulkSendsModule,
]);

/** The entities and migrations, for opening the database. */
export const DATA_MODEL = { entities: MODULES.entities, migrations: MODULES.migrations };

/** Every REST row (the tenancy matrix and statement counts walk them). */
export const REST_ROWS = MODULES.restRows;
