import { Migration } from '@mikro-orm/migrations';

// The owner's review: whether (and when first) recipients submitted, which decides where a
// regenerated link leaves the request and when the owner has "opened" it; and the last rejection,
// which the portal shows the recipients (the message and the items to redo).
export class Migration20261124000000_review extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table request add column first_submitted_at timestamptz;
      alter table request add column rejection jsonb;
    `);
  }
}
