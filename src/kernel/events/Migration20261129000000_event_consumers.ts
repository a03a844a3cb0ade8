import { Migration } from '@mikro-orm/migrations';

// Effects follow an event after it committed, as jobs (kernel/events/consumers.ts): the event keeps
// who caused it and what happened, for them, and each consumer marks the events it has acted on, in
// the transaction of its effect, so that a job run again after a crash repeats nothing.
export class Migration20261129000000_event_consumers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event add column action text, add column details jsonb, add column actor jsonb;
      create table event_consumer (
        event_id uuid not null references event (id) on delete cascade,
        consumer text not null,
        organization_id uuid not null references organization (id) on delete cascade,
        consumed_at timestamptz not null default now(),
        primary key (event_id, consumer)
      );
    `);
  }
}
