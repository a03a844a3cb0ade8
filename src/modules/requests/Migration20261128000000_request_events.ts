import { Migration } from '@mikro-orm/migrations';

// `requestEvents` (the catch-up after a dropped connection) pages an organization's events by
// (created_at, id) from a recent `since`: without this index a page read and sorted every event the
// organization ever had. One more index entry per event written.
export class Migration20261128000000_request_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index event_organization_created_idx on event (organization_id, created_at, id);`);
  }
}
