import { Migration } from '@mikro-orm/migrations';

// The transactional outbox (event), webhook endpoints and their deliveries. A delivery row is written
// in the transaction of its event, so no event can lose its deliveries; workers claim due rows with
// FOR UPDATE SKIP LOCKED. Items become soft-deleted so an item.deleted event can still show the item.
export class Migration20261122000000_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event (
        id uuid primary key,
        seq bigint generated always as identity unique,
        organization_id uuid not null references organization (id) on delete cascade,
        topic text not null,
        subject_type text not null,
        subject_id uuid not null,
        request_id uuid,
        data jsonb not null,
        updated jsonb,
        created_at timestamptz not null
      );
      create index event_organization_seq_idx on event (organization_id, seq);

      create table webhook (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        endpoint text not null,
        topics text[] not null,
        secret_sealed text not null,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        created_by_id uuid references app_user (id) on delete set null,
        failing_since timestamptz,
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index webhook_organization_idx on webhook (organization_id, created_at, id);

      create table webhook_delivery (
        id uuid primary key,
        webhook_id uuid not null references webhook (id) on delete cascade,
        event_id uuid not null references event (id) on delete cascade,
        event_seq bigint not null,
        topic text not null,
        status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
        attempts integer not null,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        unique (webhook_id, event_id)
      );
      create index webhook_delivery_due_idx on webhook_delivery (next_attempt_at, event_seq) where status = 'PENDING';
      create index webhook_delivery_webhook_idx on webhook_delivery (webhook_id, created_at, id);

      create table webhook_attempt (
        id uuid primary key,
        delivery_id uuid not null references webhook_delivery (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        latency_ms integer not null,
        error text
      );
      create index webhook_attempt_delivery_idx on webhook_attempt (delivery_id, attempted_at);

      alter table request_item add column deleted_at timestamptz;
    `);
  }
}
