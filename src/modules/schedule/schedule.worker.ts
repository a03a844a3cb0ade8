import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../kernel/clock';
import type { Db } from '../../kernel/db/db';
import type { ContextFactory } from '../../kernel/graphql/context';
import { PollingWorker } from '../../kernel/jobs/polling-worker';
import { deleteReferences } from '../files/file.service';
import { renderingViewer } from '../portal/portal.access';
import { findVisibleRequest } from '../requests/request.access';
import { JOB_BATCH, JOB_CONCURRENCY, JOB_MAX_ATTEMPTS, JOB_RETRY_DELAYS_MS } from './schedule.limits';
import {
  contributedKind,
  JOB_HANDLERS,
  type ClaimedJob,
  type JobContext,
  type JobOutcome,
  type ScheduleSettings,
} from './schedule.jobs';
import type { JobKind } from './schedule.entities';

export type ScheduleWorkerOptions = {
  db: Db;
  contexts: ContextFactory;
  settings: ScheduleSettings;
  log: FastifyBaseLogger;
  clock: Clock;
  /** How often due jobs are looked for. */
  pollMs?: number;
};

/**
 * Runs a job in its transaction: a request's on its request, locked (nothing once it is gone), by its
 * kind here or the module's that contributed it; another record's by its contributed kind alone.
 */
async function runJob(job: ClaimedJob, run: Omit<JobContext, 'request'>): Promise<JobOutcome> {
  const contributed = contributedKind(job.kind);
  const handler = contributed?.run ?? JOB_HANDLERS[job.kind as JobKind];
  if (!handler) throw new Error(`No timed work runs jobs of kind ${job.kind}`);
  if (job.request_id === null) {
    if (!contributed) throw new Error(`A job of kind ${job.kind} names no request`);
    return contributed.run(job, run);
  }
  const request = await findVisibleRequest(run.tx, run.ctx.viewer, job.request_id, { forUpdate: true });
  return request ? handler(job, { ...run, request }) : {};
}

/** A job whose lease another instance took over: its work is rolled back, the other instance's stands. */
class LeaseLost extends Error {}

/**
 * Runs due jobs. A round claims due rows with FOR UPDATE SKIP LOCKED and a fresh lease (instances
 * share the queue, none waits for another) for `settings.leaseMs`; each job then runs in one transaction with
 * everything it changes (messages queued, state moved, events, the next due time), ended by a write that must still
 * find its own lease: a job whose lease lapsed and was claimed again is rolled back, so each occurrence takes effect
 * exactly once. A failing job is tried again on JOB_RETRY_DELAYS_MS.
 */
export class ScheduleWorker extends PollingWorker {
  constructor(private readonly options: ScheduleWorkerOptions) {
    super(options.log, 'timed job', null, options.pollMs);
  }

  override async runOnce(): Promise<number> {
    const now = this.options.clock.now();
    const warningAhead = new Date(now.getTime() + this.options.settings.expirationWarningDays * 86_400_000);
    // One statement, outside any transaction, prepared as the other workers' claims: every instance runs it each second.
    const claimed = await this.options.db.rows<ClaimedJob>(
      `with due as (
         select id from job
          where status = 'PENDING' and (due_at <= ? or (kind = 'EXPIRATION_WARNING' and due_at <= ?))
            and (locked_until is null or locked_until < ?)
          order by due_at
          limit ?
          for update skip locked)
       update job j set lease = gen_random_uuid(), locked_until = ?
         from due
        where j.id = due.id
       returning j.id, j.organization_id, j.request_id, j.kind, j.key, j.due_at, j.payload, j.attempts, j.lease`,
      [now, warningAhead, now, JOB_BATCH, new Date(now.getTime() + this.options.settings.leaseMs)],
      { prepared: true },
    );
    // Jobs of different requests do not wait for each other (each locks its own request).
    const queue = [...claimed];
    await Promise.all(
      Array.from({ length: Math.min(JOB_CONCURRENCY, queue.length) }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await this.run(job);
      }),
    );
    return claimed.length;
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { contexts, clock, log } = this.options;
    const base = contexts.forViewer(renderingViewer(job.organization_id), { log, requestId: `job:${job.id}` });
    try {
      const prepared = await contributedKind(job.kind)?.prepare?.(job, base);
      await deleteReferences(base, async (tx) => {
        const ctx = contexts.forViewer(base.viewer, { db: tx, log, requestId: base.requestId });
        const now = clock.now();
        const outcome = await runJob(job, { ctx, tx, now, prepared });
        const finished = await tx.execute(
          `update job set status = ?, due_at = coalesce(?, due_at), attempts = 0, lease = null, locked_until = null, last_error = null,
                          done_at = ?, updated_at = ?
            where id = ? and lease = ?`,
          [outcome.next ? 'PENDING' : 'DONE', outcome.next ?? null, outcome.next ? null : now, now, job.id, job.lease],
        );
        if (finished === 0) throw new LeaseLost();
        return { result: null, fileIds: outcome.fileIds ?? [] };
      });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      await this.failed(job, err);
    }
  }

  private async failed(job: ClaimedJob, err: unknown): Promise<void> {
    const now = this.options.clock.now();
    const attempts = job.attempts + 1;
    const final = attempts >= JOB_MAX_ATTEMPTS;
    this.options.log.error({ err, job: job.id, kind: job.kind }, 'a timed job failed');
    const retryAt = final ? null : new Date(now.getTime() + JOB_RETRY_DELAYS_MS[attempts - 1]);
    const error = String((err as Error)?.message ?? err).slice(0, 500);
    const recordFailure = contributedKind(job.kind)?.failed;
    await this.options.db
      .transaction(async (tx) => {
        const recorded = await tx.execute(
          `update job set status = ?, attempts = ?, due_at = ?, last_error = ?, lease = null, locked_until = null, updated_at = ?
          where id = ? and lease = ?`,
          [final ? 'FAILED' : 'PENDING', attempts, retryAt ?? job.due_at, error, now, job.id, job.lease],
        );
        if (recorded > 0) await recordFailure?.(tx, { job, error, attempts, final, retryAt });
      })
      .catch((error: unknown) => this.options.log.error({ err: error, job: job.id }, 'recording a failed job failed'));
  }
}
