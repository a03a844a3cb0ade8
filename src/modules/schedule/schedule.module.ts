import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261125000000_schedule } from './Migration20261125000000_schedule';
import { Escalation, Job, Reminder, ScheduledReminder } from './schedule.entities';
import { cancelEndedJobs, planOverdueEscalations, planRequestJobs } from './schedule.planning';

export const scheduleModule: ModuleDescriptor = {
  name: 'schedule',
  entities: [Job, Reminder, ScheduledReminder, Escalation],
  migrations: [{ name: 'Migration20261125000000_schedule', class: Migration20261125000000_schedule }],
  emitHooks: [cancelEndedJobs, planRequestJobs, planOverdueEscalations],
};
