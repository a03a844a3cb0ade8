import { Migration } from '@mikro-orm/migrations';

// The messages of timed work: reminders and the expiration warning (to recipients, with their link)
// and escalations (to a user or an address the owner chose).
export class Migration20261125000000_timed_kinds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table notification drop constraint notification_kind_check;
      alter table notification add constraint notification_kind_check check (kind in
        ('INVITATION', 'ONE_TIME_CODE', 'CHANGES_REQUESTED', 'REQUEST_SUBMITTED', 'REQUEST_COMPLETED', 'REMINDER', 'EXPIRATION_WARNING', 'ESCALATION'));
    `);
  }
}
