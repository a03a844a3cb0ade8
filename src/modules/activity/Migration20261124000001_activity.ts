import { Migration } from '@mikro-orm/migrations';

// The activity log of requests: one row per event on a request, written by an outbox hook in the
// event's own statement, and rows the recipient side records for what has no topic. Newest first by
// `seq` within a request.
export class Migration20261124000001_activity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table activity (
        id uuid primary key,
        seq bigserial unique,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid not null references request (id) on delete cascade,
        action text not null,
        actor_type text not null check (actor_type in ('USER', 'RECIPIENT', 'SYSTEM')),
        actor_id uuid,
        ip text,
        user_agent text,
        details jsonb not null,
        created_at timestamptz not null
      );
      create index activity_request_idx on activity (request_id, seq desc);
    `);
  }
}
