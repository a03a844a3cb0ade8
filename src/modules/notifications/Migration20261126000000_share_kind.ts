import { Migration } from '@mikro-orm/migrations';

// The invitation to a share (files an owner sends): to an address, its link sealed until sent.
export class Migration20261126000000_share_kind extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table notification drop constraint notification_kind_check;
      alter table notification add constraint notification_kind_check check (kind in
        ('INVITATION', 'ONE_TIME_CODE', 'CHANGES_REQUESTED', 'REQUEST_SUBMITTED', 'REQUEST_COMPLETED', 'REMINDER', 'EXPIRATION_WARNING', 'ESCALATION', 'SHARE_INVITATION'));
    `);
  }
}
