import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { Outbox } from '../../kernel/events/outbox';
import type { ContextFactory } from '../../kernel/graphql/context';
import type { TaskHandler } from '../../kernel/jobs/queue';
import type { Viewer } from '../identity/viewer';
import type { SharedReads } from '../requests/request.creation';
import { createRequest } from '../requests/request.service';
import { BulkSend, type BulkSendRow } from './bulk-send.entities';
import { BULK_SEND_CONCURRENCY, BULK_SEND_PROGRESS_MS, BULK_SEND_PROGRESS_ROWS } from './bulk-send.limits';
import { requestInputOf, RUN_TASK, type StoredRow } from './bulk-send.service';

export type BulkSendTaskDeps = { db: Db; contexts: ContextFactory; events: Outbox; log: FastifyBaseLogger };

/** Rows read at a time: a bulk send's rows are never all in memory at once. */
const BATCH = 100;

/** A row whose request another run of the job made first: this run's copy is undone. */
class AlreadyMade extends Error {}

/** The bulk send's owner as the viewer its requests are made by; null once the user is gone. */
async function ownerViewer(db: Db, bulkSend: BulkSendRow): Promise<Viewer | null> {
  const [user] = await db.rows<{ id: string; team_id: string | null; role: Viewer['role'] }>(
    'select id, team_id, role from app_user where id = ? and organization_id = ?',
    [bulkSend.owner.id, bulkSend.organization.id],
  );
  return user
    ? {
        userId: user.id,
        organizationId: bulkSend.organization.id,
        teamId: user.team_id,
        role: user.role,
        apiKeyId: '',
        actor: { type: 'USER', id: user.id },
      }
    : null;
}

/**
 * When a run tells subscribers of its counts: after `BULK_SEND_PROGRESS_ROWS` rows tried since it last did, or once
 * `BULK_SEND_PROGRESS_MS` passed with a row tried (`due` is asked after each row).
 */
function progressThrottle(now = Date.now) {
  let rows = 0;
  let last = now();
  return {
    due(): boolean {
      rows += 1;
      if (rows < BULK_SEND_PROGRESS_ROWS && now() - last < BULK_SEND_PROGRESS_MS) return false;
      rows = 0;
      last = now();
      return true;
    },
  };
}

/**
 * The `bulk_send.run` task: makes a request per row, each in its own transaction with the row's mark (its request,
 * or why creation refused it) and the counts, so a run again after a crash skips what was done and makes no request
 * twice. A row refused at creation (its template or contact changed since the check) is counted as failed; any other
 * error fails the job, which the queue runs again from where it stopped. Subscribers hear of the counts as they move
 * (`bulk_send.progressed`, throttled) and once at the end (`bulk_send.completed`), each event in the transaction of
 * the change it tells.
 */
export function bulkSendTasks({ db, contexts, events, log }: BulkSendTaskDeps): Record<string, TaskHandler> {
  return {
    [RUN_TASK]: async ({ bulkSendId }: { bulkSendId: string }) => {
      const execute = (sql: string, params: unknown[]) => db.transaction((tx) => tx.execute(sql, params));
      const [bulkSend] = await db.records(BulkSend, 'select * from bulk_send where id = ?', [bulkSendId]);
      if (!bulkSend || bulkSend.status === 'COMPLETED' || bulkSend.status === 'FAILED') return;
      const tell = (tx: Tx, topic: 'bulk_send.progressed' | 'bulk_send.completed') =>
        events.emit(
          tx,
          { organizationId: bulkSend.organization.id, actor: { type: 'SYSTEM', id: null } },
          { topic, subjectType: 'BulkSend', subjectId: bulkSend.id },
        );
      // Ends the bulk send (COMPLETED, or FAILED with nobody to make its requests) once, with its last event.
      const end = (status: 'COMPLETED' | 'FAILED', from: string[]) =>
        db.transaction(async (tx) => {
          const ended = await tx.execute(
            'update bulk_send set status = ?, updated_at = now(), completed_at = now() where id = ? and status = any(?::text[])',
            [status, bulkSend.id, from],
          );
          if (ended) await tell(tx, 'bulk_send.completed');
        });
      const viewer = await ownerViewer(db, bulkSend);
      if (!viewer || !bulkSend.template) {
        await end('FAILED', ['QUEUED', 'RUNNING']);
        return;
      }
      const progress = progressThrottle();
      const templateId = bulkSend.template.id;
      const requestId = `bulk_send:${bulkSend.id}`;
      await execute("update bulk_send set status = 'RUNNING', updated_at = now() where id = ? and status = 'QUEUED'", [
        bulkSend.id,
      ]);
      const make = async (row: StoredRow, shared: SharedReads) => {
        try {
          await db.transaction(async (tx) => {
            const ctx = contexts.forViewer(viewer, { db: tx, log, requestId });
            const { request } = await createRequest(ctx, requestInputOf(templateId, row.data), shared);
            // The row's mark and the count in one statement; a second run of this job (a worker thought dead) that
            // made the same row's request finds it marked once the first commits, and undoes its own.
            const [marked] = await tx.rows<{ n: number }>(
              `with marked as (update bulk_send_row set request_id = ?
                 where bulk_send_id = ? and line = ? and request_id is null and error is null returning 1)
               update bulk_send set created = created + (select count(*) from marked), updated_at = now()
                where id = ? returning (select count(*) from marked)::int as n`,
              [request.id, bulkSend.id, row.line, bulkSend.id],
            );
            if (!marked?.n) throw new AlreadyMade();
            if (progress.due()) await tell(tx, 'bulk_send.progressed');
          });
        } catch (err) {
          if (err instanceof AlreadyMade) return;
          if (!(err instanceof AppError)) throw err;
          await db.transaction(async (tx) => {
            const marked = await tx.execute(
              'update bulk_send_row set error = ? where bulk_send_id = ? and line = ? and request_id is null and error is null',
              [err.message.slice(0, 1000), bulkSend.id, row.line],
            );
            if (!marked) return;
            await tx.execute('update bulk_send set failed = failed + 1, updated_at = now() where id = ?', [
              bulkSend.id,
            ]);
            if (progress.due()) await tell(tx, 'bulk_send.progressed');
          });
        }
      };
      for (;;) {
        const rows = await db.rows<StoredRow>(
          'select line, data from bulk_send_row where bulk_send_id = ? and request_id is null and error is null order by line limit ?',
          [bulkSend.id, BATCH],
        );
        if (rows.length === 0) break;
        // A batch's rows share their reads (the template, read once a batch: a change to it reaches the next).
        const shared: SharedReads = new Map();
        for (let at = 0; at < rows.length; at += BULK_SEND_CONCURRENCY) {
          // Every row of a group ends (made, or refused) before an error stops the run: none is left half done.
          const outcomes = await Promise.allSettled(
            rows.slice(at, at + BULK_SEND_CONCURRENCY).map((row) => make(row, shared)),
          );
          const failed = outcomes.find((outcome) => outcome.status === 'rejected');
          if (failed) throw failed.reason;
        }
      }
      await end('COMPLETED', ['RUNNING']);
    },
  };
}
