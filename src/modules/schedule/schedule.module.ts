import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261125000000_schedule } from './Migration20261125000000_schedule';
import { Migration20261126000000_retention } from './Migration20261126000000_retention';
import { Migration20261126000100_job_subjects } from './Migration20261126000100_job_subjects';
import { Migration20261129000100_timed_jobs } from './Migration20261129000100_timed_jobs';
import { Escalation, Job, Reminder, ScheduledReminder } from './schedule.entities';
import { replanRetention, scheduleConsumer } from './schedule.planning';
import { scheduleLoaders } from './schedule.loaders';
import { scheduleResolvers } from './schedule.resolvers';
import { getReminder } from './schedule.service';
import { bounceHandlers } from '../notifications/notification.worker';
import { retentionChanges } from '../organizations/organization.service';
import { fallBackToOtherChannel } from './reminder.service';
import { scheduleRestRows } from './schedule.rest';
import { scheduleMetrics } from './schedule.metrics';
import { requestCreationParts } from '../requests/request.creation';
import { requestRestParts } from '../requests/request.rest-parts';
import { requestUpdateParts } from '../requests/request.update-parts';
import { requestViewParts } from '../requests/request.view';
import {
  requestEscalationsPart,
  requestEscalationsRestPart,
  requestEscalationsUpdate,
  requestEscalationsView,
} from './escalation.request-parts';

export const scheduleModule: ModuleDescriptor = {
  name: 'schedule',
  entities: [Job, Reminder, ScheduledReminder, Escalation],
  migrations: [
    { name: 'Migration20261125000000_schedule', class: Migration20261125000000_schedule },
    { name: 'Migration20261126000000_retention', class: Migration20261126000000_retention },
    { name: 'Migration20261126000100_job_subjects', class: Migration20261126000100_job_subjects },
    { name: 'Migration20261129000100_timed_jobs', class: Migration20261129000100_timed_jobs },
  ],
  loaders: scheduleLoaders,
  resolvers: scheduleResolvers,
  nodes: { Reminder: { sql: 'select 1 from reminder where id = ? and organization_id = ?', load: getReminder } },
  restRows: scheduleRestRows,
  consumers: [scheduleConsumer],
  contributes: [
    bounceHandlers.contribute(fallBackToOtherChannel),
    retentionChanges.contribute(replanRetention),
    requestCreationParts.contribute(requestEscalationsPart),
    requestUpdateParts.contribute(requestEscalationsUpdate),
    requestViewParts.contribute(requestEscalationsView),
    requestRestParts.contribute(requestEscalationsRestPart),
  ],
  metrics: scheduleMetrics,
};
