import { Migration } from '@mikro-orm/migrations';

// Unfinished resumable uploads, counted in PostgreSQL so that every instance sees the same count and
// a creation checks and reserves in one transaction.
export class Migration20261129000000_partial_uploads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table partial_upload (
        id text primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        link_tag char(16) not null,
        length bigint not null,
        created_at timestamptz not null
      )`);
  }
}
