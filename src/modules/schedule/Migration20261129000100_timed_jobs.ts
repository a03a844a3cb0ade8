import { Migration } from '@mikro-orm/migrations';

// Timed work runs on the job queue: a `job` row is the plan, and a `schedule.run` job of key `timed:<key>` carries it
// out, holding it while it runs, so the rows' leases go. Each pending row gets its job here (the queue's schema is
// migrated before ours); an expiration warning's runs at once and puts itself back at its time, which depends on
// EXPIRATION_WARNING_DAYS. 10 attempts: the queue's DEFAULT_ATTEMPTS as this migration was written.
export class Migration20261129000100_timed_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table job drop column lease, drop column locked_until;
      select graphile_worker.add_job('schedule.run', json_build_object('jobId', id),
                                     run_at => case when kind = 'EXPIRATION_WARNING' then now() else due_at end,
                                     max_attempts => 10, job_key => 'timed:' || key)
        from job where status = 'PENDING';
    `);
  }
}
