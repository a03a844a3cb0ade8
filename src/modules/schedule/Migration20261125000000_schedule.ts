import { Migration } from '@mikro-orm/migrations';

// Timed work. `job` is the queue: one row per thing that comes due (a request's next periodic
// reminder, its expiration warning, expiry, auto-close, each scheduled reminder and escalation),
// planned in the statement of the event that changes its date and claimed by any instance with
// FOR UPDATE SKIP LOCKED under a lease; its `key` names what it is for, once. `reminder` records
// each reminder sent (its `occurrence` unique per request: an occurrence is sent once), and
// `scheduled_reminder` and `escalation` are the rules the API manages.
export class Migration20261125000000_schedule extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table job (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid not null references request (id) on delete cascade,
        kind text not null check (kind in ('REMINDER', 'DEFERRED_REMINDER', 'SCHEDULED_REMINDER', 'EXPIRATION_WARNING', 'EXPIRE', 'AUTO_CLOSE', 'ESCALATION')),
        key text not null unique,
        due_at timestamptz not null,
        payload jsonb not null,
        status text not null check (status in ('PENDING', 'DONE', 'CANCELLED', 'FAILED')),
        attempts integer not null,
        lease uuid,
        locked_until timestamptz,
        last_error text,
        done_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index job_due_idx on job (due_at) where status = 'PENDING';
      create index job_request_idx on job (request_id) where status = 'PENDING';

      create table reminder (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid not null references request (id) on delete cascade,
        kind text not null check (kind in ('MANUAL', 'PERIODIC', 'SCHEDULED')),
        occurrence text not null,
        message text,
        recipients jsonb not null,
        sent_by_id uuid references app_user (id) on delete set null,
        sent_at timestamptz not null,
        unique (request_id, occurrence)
      );
      create index reminder_request_idx on reminder (request_id, sent_at desc, id);

      create table scheduled_reminder (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid not null references request (id) on delete cascade,
        send_at timestamptz not null,
        message text,
        status text not null check (status in ('PENDING', 'SENT', 'CANCELLED')),
        sent_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index scheduled_reminder_request_idx on scheduled_reminder (request_id, send_at, id);

      create table escalation (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        request_id uuid not null references request (id) on delete cascade,
        condition text not null check (condition in ('OVERDUE', 'NOT_OPENED')),
        after_days integer not null,
        notify_user_id uuid references app_user (id) on delete cascade,
        notify_email varchar(320),
        status text not null check (status in ('PENDING', 'FIRED')),
        fired_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index escalation_request_idx on escalation (request_id, created_at, id);

    `);
  }
}
