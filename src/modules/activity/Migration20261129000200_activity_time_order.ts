import { Migration } from '@mikro-orm/migrations';

// A request's log reads newest first by time: its entries are written after their events committed (by
// the activity consumer), so the insertion order (`seq`) no longer follows the order things happened.
export class Migration20261129000200_activity_time_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop index activity_request_idx;
      create index activity_request_idx on activity (request_id, created_at desc, seq desc);
    `);
  }
}
