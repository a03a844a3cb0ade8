import { Migration } from '@mikro-orm/migrations';

// Every message sent (or kept) for a request: its rows are queued in the transaction that causes
// them (the invitation in the request.created event's own statement) and claimed by workers with
// FOR UPDATE SKIP LOCKED, as webhook deliveries are. A message outlives its request and recipient.
export class Migration20261123000000_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table notification (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid references request (id) on delete set null,
        recipient_id uuid references recipient (id) on delete set null,
        user_id uuid references app_user (id) on delete set null,
        channel text not null check (channel in ('EMAIL', 'SMS')),
        kind text not null check (kind in ('INVITATION', 'ONE_TIME_CODE', 'CHANGES_REQUESTED', 'REQUEST_SUBMITTED', 'REQUEST_COMPLETED')),
        address varchar(320) not null,
        language text not null,
        params jsonb not null,
        secrets_sealed text,
        subject text,
        text text,
        html text,
        status text not null check (status in ('PENDING', 'SENT', 'KEPT', 'FAILED')),
        attempts integer not null,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        last_error text,
        sent_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index notification_due_idx on notification (next_attempt_at) where status = 'PENDING';
      create index notification_organization_idx on notification (organization_id, created_at, id);
      create index notification_request_idx on notification (request_id, created_at, id);
    `);
  }
}
