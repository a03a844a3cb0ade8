import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Tx } from '../../kernel/db/db';
import { eachEvent, type Consumer } from '../../kernel/events/consumers';
import { recordActivity } from '../activity/activity.service';
import { documentsByItem } from '../documents/document.service';
import { documentPaths } from '../documents/document.zip';
import { openFile } from '../files/file.service';
import { findVisibleRequest } from '../requests/request.access';
import type { ClaimedJob, ContributedJobKind, JobFailure } from '../schedule/schedule.jobs';
import { PLANNED, queuePlanned, type PlannedRow } from '../schedule/schedule.planning';
import { CloudStorageConnection, COPY_JOB_KIND } from './cloud-storage.entities';
import { connectionClient, describeS3Error, putObject } from './cloud-storage.s3';

// A request's documents go to its organization's bucket when it completes and when it is verified: a
// timed job per such event, planned by its consumer once the event committed (once per event: its key
// names the event), run by the job queue, retried on the timed work's schedule, and recorded in the
// activity log.

/** The events after which a request naming S3 is copied, and the name each copy gives its trigger. */
const TRIGGERS: Record<string, string> = { 'request.completed': 'completed', 'request.verified': 'verified' };

/** Plans the copy of a request that named S3 when it completed or was verified (its view in the event says). */
export const cloudCopyConsumer: Consumer = {
  name: 'cloud-storage',
  applies: (event) => TRIGGERS[event.action] !== undefined && event.data.cloud_storage_provider === 'S3',
  run: eachEvent(async (tx, event) => {
    const rows = await tx.rows<PlannedRow>(
      `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
       values (gen_random_uuid(), ?, ?, '${COPY_JOB_KIND}', ?, ?, ?::jsonb, 'PENDING', 0, ?, ?)
       on conflict (key) do nothing
       returning ${PLANNED}`,
      [
        event.organizationId,
        event.requestId,
        `cloud-copy:${event.id}`,
        event.createdAt,
        JSON.stringify({ trigger: TRIGGERS[event.action] }),
        event.createdAt,
        event.createdAt,
      ],
    );
    await queuePlanned(tx, rows);
  }),
};

/**
 * The key prefix of a request's copy: its `cloud_storage_folder` as path segments (empty, `.` and `..`
 * dropped, so a folder cannot climb out of itself in tools that read keys as paths), else the request's id.
 */
export function folderOf(folder: string | null, requestId: string): string {
  const segments = (folder ?? '')
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment && segment !== '.' && segment !== '..');
  return `${(segments.length ? segments : [requestId]).join('/')}/`;
}

const SYSTEM = { type: 'SYSTEM', id: null } as const;

/** The request a copy is for: cloudCopyConsumer names one on every copy job. */
function requestOf(job: ClaimedJob): string {
  if (!job.request_id) throw new Error(`Cloud copy job ${job.id} names no request`);
  return job.request_id;
}

async function recordFailure(tx: Tx, { job, error, attempts, final, retryAt }: JobFailure): Promise<void> {
  await recordActivity(tx, {
    organizationId: job.organization_id,
    requestId: requestOf(job),
    action: 'cloud_storage.copy_failed',
    actor: SYSTEM,
    details: {
      provider: 'S3',
      trigger: job.payload.trigger,
      attempt: attempts,
      error,
      final,
      next_attempt_at: retryAt?.toISOString() ?? null,
    },
  });
}

/** What a copy did, for its record; null when no bucket was connected. */
type Copied = { bucket: string; folder: string; documents: number } | null;

/**
 * Copies every document of the request to `<folder>/<item>/<file>` in the connected bucket (the zip's
 * names), before and outside the job's transaction (a large copy holds neither the request's lock nor
 * a connection); the job's transaction then records it. Objects are written whole or not at all, under
 * names fixed by the request, so an attempt that failed half-way, or ran again after a crash, leaves
 * the same objects as one clean run; the record is written once, by the run that found its job pending.
 */
export const cloudCopyJob: ContributedJobKind = {
  kinds: [COPY_JOB_KIND],
  failed: recordFailure,
  async prepare(job, ctx): Promise<Copied> {
    const [connection] = await ctx.db.records(
      CloudStorageConnection,
      'select * from cloud_storage_connection where organization_id = ? and provider = ?',
      [job.organization_id, 'S3'],
    );
    const request = await findVisibleRequest(ctx.db, ctx.viewer, requestOf(job));
    // A request deleted meanwhile is not copied (and the job finds nothing to record).
    if (!connection || !request) return null;
    const folder = folderOf(request.cloudStorageFolder ?? null, request.id);
    const paths = documentPaths((await documentsByItem(ctx, request.id)).items);
    const client = connectionClient(ctx.settings.secret, connection, ctx.log);
    try {
      for (const entry of paths) {
        if ('file' in entry)
          await putObject(
            client,
            connection.bucket,
            folder + entry.name,
            await openFile(ctx, entry.file),
            entry.file.size,
            entry.file.mimeType,
            entry.file.sha256,
          );
        else
          await putObject(
            client,
            connection.bucket,
            folder + entry.name,
            Readable.from([entry.bytes]),
            entry.bytes.length,
            entry.mimeType,
            createHash('sha256').update(entry.bytes).digest('hex'),
          );
      }
    } catch (err) {
      throw new Error(describeS3Error(err), { cause: err });
    } finally {
      client.destroy();
    }
    return { bucket: connection.bucket, folder, documents: paths.length };
  },
  async run(job, { tx, request, prepared }) {
    // The worker runs a job naming a request only on that request, locked.
    if (!request) throw new Error(`Cloud copy job ${job.id} ran without its request ${requestOf(job)}`);
    const copied = prepared as Copied;
    const entry = { organizationId: request.organization.id, requestId: request.id, actor: SYSTEM };
    const trigger = job.payload.trigger as string;
    if (!copied) {
      await recordActivity(tx, {
        ...entry,
        action: 'cloud_storage.copy_skipped',
        details: { provider: 'S3', trigger, reason: 'No S3 bucket is connected' },
      });
    } else {
      await recordActivity(tx, {
        ...entry,
        action: 'cloud_storage.copied',
        details: { provider: 'S3', trigger, ...copied, attempt: job.attempts + 1 },
      });
    }
    return {};
  },
};
