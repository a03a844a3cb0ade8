import { Migration } from '@mikro-orm/migrations';

// The job queue an event's job went to: a worker running one of a queue's jobs finds the events waiting
// after it in that queue by this index (kernel/events/consumers.ts), not by scanning the job table.
export class Migration20261205000000_event_job_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event add column job_queue text;
      create index event_job_queue_idx on event (job_queue, seq) where job_queue is not null;
    `);
  }
}
