import { Migration } from '@mikro-orm/migrations';

// Timed work of records other than requests (a share's expiration and deletion): such a job names no
// request, and its kind is one a module above contributes (`jobKinds`), so the set is no longer
// closed here.
export class Migration20261126000100_job_subjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table job alter column request_id drop not null;
      alter table job drop constraint if exists job_kind_check;
    `);
  }
}
