import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import {
  Logger,
  type Job,
  makeWorkerUtils,
  parseCronItems,
  run,
  runMigrations,
  runOnce,
  type JobHelpers,
  type Runner,
  type RunnerOptions,
  type TaskList,
  type Worker,
  type WorkerEvents,
  type WorkerUtils,
} from 'graphile-worker';
import { Client, Pool } from 'pg';
import type { Clock } from '../clock';
import type { Reader, Tx } from '../db/db';

// The one job queue: graphile-worker (jobs in PostgreSQL, taken with SKIP LOCKED, new ones announced
// by NOTIFY). A job is added in the transaction of the change it follows (`addJob`), so it exists if
// and only if that change committed; a task is a named handler of a payload of ids, idempotent, as a
// crash may run a job again.

export type TaskHandler = (payload: any, helpers: JobHelpers) => Promise<void>;

export type JobOptions = {
  /**
   * Names the job: adding a job of a key that waits replaces it (its payload and time), so a plan
   * made again moves its job rather than adding one; `removeJobs` cancels it.
   */
  key?: string;
  /** Not before this time. */
  runAt?: Date;
  /**
   * Jobs of one queue run one at a time, in the order they were added (requests' events, an endpoint's deliveries
   * about some requests). graphile-worker keeps a row per queue name until `collectQueues` deletes it, and every
   * job taken locks every idle queue's row for that moment: keep the names few (`queueOf`), not one per record.
   */
  queue?: string;
  /** Attempts when its task throws, graphile-worker backing off between them. */
  maxAttempts?: number;
};

/**
 * The queue of `buckets` named `prefix` + 0, 1... that `key` falls into, always the same (FNV-1a): what must stay in
 * order (a request's events) shares a queue, and the queues stay few however many keys there are.
 */
export function queueOf(prefix: string, key: string, buckets: number): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return `${prefix}${(hash >>> 0) % buckets}`;
}

/** Attempts of a job whose task throws (a bug or an outage: tasks handle what they expect themselves). */
export const DEFAULT_ATTEMPTS = 10;

/**
 * Taken, shared, by a transaction before it adds a job to a named queue, and held until it ends; `collectQueues`
 * takes it alone. Without it, a queue's row deleted while a transaction that added a job to that queue has not
 * committed yet (its job unseen) would leave the job naming a queue that is gone, never to run.
 */
const QUEUE_FENCE_KEY = "hashtextextended('graphile_worker.job_queues', 0)";
export const QUEUE_FENCE = `pg_advisory_xact_lock_shared(${QUEUE_FENCE_KEY})`;

/** Adds a job in the caller's transaction: it runs once that commits, and never if it rolls back. */
export async function addJob(tx: Tx, task: string, payload: object, options: JobOptions = {}): Promise<void> {
  await tx.execute(
    // Now by the clock, not the transaction's start: jobs of one queue added in one transaction keep their order.
    // The fence, when there is a queue, first: a select list is evaluated from left to right.
    `select ${options.queue ? `${QUEUE_FENCE}, ` : ''}graphile_worker.add_job(?, ?::json, queue_name => ?, run_at => coalesce(?::timestamptz, clock_timestamp()), max_attempts => ?, job_key => ?)`,
    [
      task,
      JSON.stringify(payload),
      options.queue ?? null,
      options.runAt ?? null,
      options.maxAttempts ?? DEFAULT_ATTEMPTS,
      options.key ?? null,
    ],
  );
}

/**
 * `addJob` for many jobs of one task in one statement, in the order given, through graphile-worker's bulk `add_jobs`:
 * a plan that moves many at once (every closed request of an organization) costs no round trip, and no function call,
 * per job. A key given twice counts once, as its last job (where `addJob` twice would leave it).
 */
export async function addJobs(
  tx: Tx,
  task: string,
  jobs: readonly { payload: object; key?: string; runAt?: Date; queue?: string }[],
): Promise<void> {
  if (jobs.length === 0) return;
  const last = new Map<string | number, (typeof jobs)[number]>();
  for (const [at, job] of jobs.entries()) {
    last.delete(job.key ?? at);
    last.set(job.key ?? at, job);
  }
  const specs = [...last.values()];
  // The fence, when there is a queue, is the row the jobs are added from: taken before them. Jobs without a time are
  // a microsecond apart, in order: the clock may not move between two rows, and add_jobs may insert them in any order.
  await tx.execute(
    `select count(*) from (
       select graphile_worker.add_jobs(array(
                select row(?, j.payload, j.queue, coalesce(j.run_at, clock_timestamp() + j.n * interval '1 microsecond'), ?,
                           j.key, null, null)::graphile_worker.job_spec
                  from unnest(?::json[], ?::timestamptz[], ?::text[], ?::text[]) with ordinality as j (payload, run_at, key, queue, n)
                 order by j.n))
         from (select ${specs.some((job) => job.queue) ? QUEUE_FENCE : 'null'}) as fence) as added`,
    [
      task,
      DEFAULT_ATTEMPTS,
      specs.map((job) => JSON.stringify(job.payload)),
      specs.map((job) => job.runAt ?? null),
      specs.map((job) => job.key ?? null),
      specs.map((job) => job.queue ?? null),
    ],
  );
}

/** Cancels the waiting jobs of `keys` (one under way finishes), in the caller's transaction, in one statement. */
export async function removeJobs(tx: Tx, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.execute('select graphile_worker.remove_job(k) from unnest(?::text[]) as k', [keys]);
}

/** A job taken along by a task that does several at once (`jobsAlong`): its id and its key. */
export type JobAlong = { jobId: string; key: string };

/**
 * Those of the jobs of `keys` that wait in the running job's queue for its task, due and never tried, oldest first: no
 * other worker takes them while this job runs (a queue's jobs run one at a time), so a task can do them now, in one
 * pass, and then complete them (`completeJobs`). The task finds the keys in its own tables (an index, not a scan of the
 * job table). A crash before they are completed leaves them to run alone: their tasks are idempotent anyway.
 */
export async function jobsAlong(db: Reader, job: Job, keys: readonly string[]): Promise<JobAlong[]> {
  if (job.job_queue_id === null || keys.length === 0) return [];
  const rows = await db.rows<{ id: string; key: string }>(
    `select j.id, j.key from graphile_worker.jobs j
      where j.key = any(?::text[]) and j.queue_name = (select queue_name from graphile_worker.jobs where id = ?)
        and j.task_identifier = ? and j.locked_at is null and j.attempts = 0 and j.run_at <= now()
      order by j.run_at, j.id`,
    [keys, job.id, job.task_identifier],
    { prepared: true },
  );
  return rows.map((row) => ({ jobId: String(row.id), key: row.key }));
}

/** Completes jobs a task did along with its own (`jobsAlong`), in the caller's transaction. */
export async function completeJobs(tx: Tx, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length > 0)
    await tx.execute('select count(*) from graphile_worker.complete_jobs(?::bigint[])', [jobIds], { prepared: true });
}

/** Installs or upgrades graphile-worker's schema (with the service's own migrations, at start and by the CLI). */
export async function migrateJobQueue(url: string): Promise<void> {
  await runMigrations({ connectionString: url, logger: new Logger(() => () => undefined) });
}

export type QueueOptions = {
  url: string;
  tasks: Record<string, TaskHandler>;
  /** Jobs this instance runs at once. */
  concurrency: number;
  /** How often jobs that came due (future ones, retries) are looked for; new ones are taken at once. */
  pollMs: number;
  /** The service's time, which plans jobs (tests move it: see `runDue`). */
  clock: Clock;
  log: FastifyBaseLogger;
};

/** How often an instance looks for jobs held by a worker whose process is gone. */
const LIVENESS_MS = 500;

/** The task that deletes the rows of named queues no job uses any more, and when it runs (cron; once per minute in all). */
export const COLLECT_QUEUES_TASK = 'job_queue.collect';
const COLLECT_QUEUES_CRON = '* * * * *';
/** How long `collectQueues` waits for the transactions adding jobs to queues to end (they wait for it meanwhile). */
const COLLECT_QUEUES_WAIT = '200ms';

/**
 * The workers of this instance. graphile-worker frees the jobs of a worker that died only after four
 * hours; here a killed instance's jobs are freed within a second: each worker holds an advisory lock
 * on a connection of the instance while it lives, and every instance frees the jobs of the workers
 * whose lock it can take (their session is gone) with `forceUnlockWorkers`.
 */
export class JobQueue {
  private readonly pool: Pool;
  private runner?: Runner;
  private utils?: WorkerUtils;
  private presence?: Client;
  private liveness?: NodeJS.Timeout;

  constructor(private readonly options: QueueOptions) {
    // Its own pool: one connection listens for new jobs for good, the others take and finish them.
    this.pool = new Pool({ connectionString: options.url, max: options.concurrency + 3 });
    this.pool.on('error', (err) => options.log.warn({ err }, 'a job queue connection was lost'));
  }

  private runnerOptions(): RunnerOptions {
    const { log } = this.options;
    return {
      pgPool: this.pool,
      concurrency: this.options.concurrency,
      pollInterval: this.options.pollMs,
      noHandleSignals: true,
      taskList: {
        ...this.options.tasks,
        [COLLECT_QUEUES_TASK]: () =>
          this.collectQueues().then(
            () => undefined,
            (err: unknown) => log.warn({ err }, 'collecting empty job queues failed; the next run tries again'),
          ),
      } as TaskList,
      // One instance runs it each minute; none is made up for minutes when no instance ran.
      parsedCronItems: parseCronItems([
        { task: COLLECT_QUEUES_TASK, match: COLLECT_QUEUES_CRON, options: { backfillPeriod: 0 } },
      ]),
      logger: new Logger(() => (level, message, meta) => {
        if (level === 'error') log.error({ job: meta }, message);
        else if (level === 'warning') log.warn({ job: meta }, message);
        else log.debug({ job: meta }, message);
      }),
    };
  }

  async start(): Promise<void> {
    const presence = new Client({ connectionString: this.options.url });
    presence.on('error', (err) => this.options.log.error({ err }, 'the job queue lost its presence connection'));
    await presence.connect();
    this.presence = presence;
    this.utils ??= await makeWorkerUtils({ pgPool: this.pool });
    // Listened to before `run`: it makes its workers, and announces them, before it answers.
    const events = new EventEmitter() as WorkerEvents;
    const workers = new Set<Worker>();
    let locks = Promise.resolve();
    events.on('worker:create', ({ worker }) => {
      workers.add(worker);
      // A worker takes its lock before its first job: the lock says its process lives.
      // One query at a time on the connection (pg deprecates queueing them), in the order workers appear.
      locks = locks.then(() =>
        presence.query('select pg_advisory_lock(hashtext($1))', [worker.workerId]).then(
          () => undefined,
          () => undefined,
        ),
      );
    });
    events.on('worker:release', ({ worker }) => workers.delete(worker));
    // A worker idle after finding nothing waits for a new job's notification or its next poll. When every due job
    // is in a named queue, a worker finds nothing while another takes a job (graphile-worker locks the idle queues'
    // rows for that moment, and skips locked ones), although jobs are due: so a worker that took a job wakes an idle
    // one, which wakes the next if it finds one too, until one finds nothing.
    events.on('job:start', () => {
      for (const worker of workers) if (worker.nudge()) break;
    });
    this.runner = await run({ ...this.runnerOptions(), events });
    this.liveness = setInterval(() => {
      this.freeOrphans().catch((err: unknown) => this.options.log.warn({ err }, 'freeing orphaned jobs failed'));
    }, LIVENESS_MS);
    this.liveness.unref();
  }

  /** Frees the jobs of workers whose process is gone, so that another worker takes them. */
  private async freeOrphans(): Promise<void> {
    const { rows } = await this.pool.query<{ locked_by: string }>(
      `select locked_by from (select distinct locked_by from graphile_worker.jobs
                               where locked_by is not null and locked_at < now() - interval '1 second') w
        where case when pg_try_advisory_lock(hashtext(locked_by)) then pg_advisory_unlock(hashtext(locked_by)) else false end`,
    );
    if (rows.length > 0) await this.utils!.forceUnlockWorkers(rows.map((row) => row.locked_by));
  }

  /**
   * Deletes the rows graphile-worker keeps of named queues that no job uses any more (its `cleanup`, GC_JOB_QUEUES):
   * it keeps one per name ever used (a deleted endpoint's, the per-request queues of earlier versions), and takes them
   * all into account each time a worker takes a job. It first waits, alone, for the transactions that added jobs to
   * queues to end (`QUEUE_FENCE`), so that none of their queues goes; if they take longer than COLLECT_QUEUES_WAIT, it
   * gives up until the next run rather than hold back every write that adds a job behind it.
   */
  async collectQueues(): Promise<boolean> {
    const utils = (this.utils ??= await makeWorkerUtils({ pgPool: this.pool }));
    const fence = await this.pool.connect();
    try {
      await fence.query('begin');
      await fence.query(`set local lock_timeout = '${COLLECT_QUEUES_WAIT}'`);
      try {
        await fence.query(`select pg_advisory_xact_lock(${QUEUE_FENCE_KEY})`);
      } catch (err) {
        if ((err as { code?: string }).code !== '55P03') throw err;
        this.options.log.debug('job queues not collected: transactions adding jobs held them');
        return false;
      }
      await utils.cleanup({ tasks: ['GC_JOB_QUEUES'] });
      return true;
    } finally {
      await fence.query('rollback').catch(() => undefined);
      fence.release();
    }
  }

  /**
   * Runs every job due by the service's clock, and what they add that is due too, until none is
   * left: how tests drive the queue. A job the clock has reached but PostgreSQL's has not (a test
   * moved it days ahead) is brought forward first.
   */
  async runDue(): Promise<void> {
    const utils = (this.utils ??= await makeWorkerUtils({ pgPool: this.pool }));
    for (let round = 0; round < 100; round++) {
      const { rows } = await this.pool.query<{ id: string }>(
        'select id from graphile_worker.jobs where locked_at is null and run_at > now() and run_at <= $1',
        [this.options.clock.now()],
      );
      if (rows.length > 0)
        await utils.rescheduleJobs(
          rows.map((row) => String(row.id)),
          { runAt: new Date(0) },
        );
      await runOnce(this.runnerOptions());
      const [{ due }] = (
        await this.pool.query<{ due: boolean }>(
          'select exists (select 1 from graphile_worker.jobs where locked_at is null and run_at <= $1 and attempts < max_attempts) as due',
          [this.options.clock.now()],
        )
      ).rows;
      if (!due) return;
    }
    throw new Error('jobs kept coming due for 100 rounds');
  }

  async stop(): Promise<void> {
    clearInterval(this.liveness);
    await this.runner?.stop();
    await this.utils?.release();
    await this.presence?.end().catch(() => undefined);
    await this.pool.end();
  }
}
