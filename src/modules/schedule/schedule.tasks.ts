import type { FastifyBaseLogger } from 'fastify';
import type { Db, Reader } from '../../kernel/db/db';
import type { ContextFactory } from '../../kernel/graphql/context';
import type { TaskHandler } from '../../kernel/jobs/queue';
import { deleteReferences } from '../files/file.service';
import { renderingViewer } from '../portal/portal.access';
import { findVisibleRequest } from '../requests/request.access';
import type { JobKind, JobStatus } from './schedule.entities';
import { JOB_MAX_ATTEMPTS, JOB_RETRY_DELAYS_MS } from './schedule.limits';
import { contributedKind, JOB_HANDLERS, type ClaimedJob, type JobContext, type JobOutcome } from './schedule.jobs';
import { PLANNED, queuePlanned, RUN_TASK, type PlannedRow } from './schedule.planning';

const DAY_MS = 86_400_000;

export type ScheduleTaskDeps = { db: Db; contexts: ContextFactory; log: FastifyBaseLogger };

type JobRow = ClaimedJob & { status: JobStatus };

const load = async (db: Reader, id: string, lock: boolean): Promise<JobRow | undefined> =>
  (
    await db.rows<JobRow>(
      `select id, organization_id, request_id, kind, key, due_at, payload, attempts, status from job where id = ?${lock ? ' for update' : ''}`,
      [id],
    )
  )[0];

/** Whether the row is still the plan a run started from: pending, neither moved, changed nor failed since. */
const unchanged = (row: JobRow | undefined, run: JobRow) =>
  row?.status === 'PENDING' &&
  new Date(row.due_at).getTime() === new Date(run.due_at).getTime() &&
  row.attempts === run.attempts &&
  JSON.stringify(row.payload) === JSON.stringify(run.payload);

/** A run whose row another run settled, moved or retried meanwhile: its work is rolled back. */
class Superseded extends Error {}

/**
 * Runs a job in its transaction: a request's on its request, locked (nothing once it is gone), by its kind here or the
 * module's that contributed it; another record's by its contributed kind alone.
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

/**
 * The `schedule.run` task: carries out a `job` row at its time. It runs in one transaction with everything it changes
 * (messages queued, state moved, events, the row DONE or due again), which ends by checking the row is still the plan
 * it ran: a run of the same row that came second (a job run again after a crash, or two jobs of one row) finds it done
 * or moved and rolls back, so each occurrence takes effect once. A failing job is tried again on JOB_RETRY_DELAYS_MS,
 * then FAILED.
 */
export function scheduleTasks(deps: ScheduleTaskDeps): Record<string, TaskHandler> {
  const { db, contexts, log } = deps;
  const { clock } = contexts.settings;
  const runAt = (job: JobRow) =>
    job.kind === 'EXPIRATION_WARNING'
      ? new Date(new Date(job.due_at).getTime() - contexts.settings.expirationWarningDays * DAY_MS)
      : new Date(job.due_at);

  return {
    [RUN_TASK]: async ({ jobId }: { jobId: string }) => {
      const job = await load(db, jobId, false);
      if (job?.status !== 'PENDING') return;
      // Early (its row moved since, or queued before its time was known): back to its time, where a job of the same
      // key may wait already (it is the same job).
      if (runAt(job) > clock.now()) {
        await db.transaction((tx) =>
          queuePlanned(tx, [{ id: job.id, key: job.key, status: job.status, run_at: runAt(job) }]),
        );
        return;
      }
      const base = contexts.forViewer(renderingViewer(job.organization_id), { log, requestId: `job:${job.id}` });
      try {
        // The slow part (a copy to cloud storage) holds neither a lock nor a connection.
        const prepared = await contributedKind(job.kind)?.prepare?.(job, base);
        await deleteReferences(base, async (tx) => {
          const ctx = contexts.forViewer(base.viewer, { db: tx, log, requestId: base.requestId });
          const now = clock.now();
          const outcome = await runJob(job, { ctx, tx, now, prepared });
          // The row is locked last, after the request (or share), in the order a change of plan takes them: locked
          // first, a run would deadlock with an edit of the rule it carries out.
          if (!unchanged(await load(tx, job.id, true), job)) throw new Superseded();
          const [finished] = await tx.rows<PlannedRow>(
            `update job set status = ?, due_at = coalesce(?, due_at), attempts = 0, last_error = null, done_at = ?, updated_at = ?
              where id = ? returning ${PLANNED}`,
            [outcome.next ? 'PENDING' : 'DONE', outcome.next ?? null, outcome.next ? null : now, now, job.id],
          );
          // Due again (the periodic reminder's next occurrence): its job at that time.
          await queuePlanned(tx, [finished]);
          return { result: null, fileIds: outcome.fileIds ?? [] };
        });
      } catch (err) {
        if (!(err instanceof Superseded)) await failed(deps, job, err);
      }
    },
  };
}

/**
 * Records a failed attempt and plans the next at its delay, or FAILED after the last; its kind may record it too. If
 * this cannot be written (the database is gone), the task fails and the job queue runs it again later.
 */
async function failed({ db, contexts, log }: ScheduleTaskDeps, job: JobRow, err: unknown): Promise<void> {
  const now = contexts.settings.clock.now();
  const attempts = job.attempts + 1;
  const final = attempts >= JOB_MAX_ATTEMPTS;
  log.error({ err, job: job.id, kind: job.kind }, 'a timed job failed');
  const retryAt = final ? null : new Date(now.getTime() + JOB_RETRY_DELAYS_MS[attempts - 1]);
  const error = String((err as Error)?.message ?? err).slice(0, 500);
  await db.transaction(async (tx) => {
    // Planned again or settled meanwhile: the attempt was of a plan that is gone.
    if (!unchanged(await load(tx, job.id, true), job)) return;
    const [row] = await tx.rows<PlannedRow>(
      `update job set status = ?, attempts = ?, due_at = ?, last_error = ?, updated_at = ? where id = ? returning ${PLANNED}`,
      [final ? 'FAILED' : 'PENDING', attempts, retryAt ?? job.due_at, error, now, job.id],
    );
    await contributedKind(job.kind)?.failed?.(tx, { job, error, attempts, final, retryAt });
    await queuePlanned(tx, [row]);
  });
}
