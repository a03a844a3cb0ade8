import type { Tx } from '../../kernel/db/db';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { extensionPoint } from '../../kernel/module';
import { recordActivity } from '../activity/activity.service';
import { removeRequestDocuments } from '../documents/document.service';
import { queueNotification } from '../notifications/notification.service';
import { Request, type RequestRow } from '../requests/request.entities';
import { closeRequest, emitRequestEvent } from '../requests/request.service';
import { transition } from '../requests/request.states';
import { pendingRecipients, queueRecipientMessage, remindable, sendReminder } from './reminder.service';
import type { EscalationCondition, JobKind, ReminderKind } from './schedule.entities';

const DAY_MS = 86_400_000;

/** A job as its task runs it (raw rows: timestamps may come as strings). */
export type ClaimedJob = {
  id: string;
  organization_id: string;
  /** Null for another record's job (a share's): its contributed kind locks its own record. */
  request_id: string | null;
  /** One of JOB_KINDS, or a kind another module contributed (`jobKinds`). */
  kind: string;
  key: string;
  due_at: Date | string;
  payload: Record<string, unknown>;
  attempts: number;
};

/** What a job decided: done, or due again at `next` (the periodic reminder); stored files to delete. */
export type JobOutcome = { next?: Date | null; fileIds?: string[] };

/**
 * What a job runs with: the service's context in the job's transaction, the time, its request, locked,
 * and what its kind's `prepare` answered.
 */
export type JobContext = { ctx: GraphQLContext; tx: Tx; now: Date; request: RequestRow; prepared?: unknown };

export type JobHandler = (job: ClaimedJob, run: JobContext) => Promise<JobOutcome>;

/** A job's failed attempt, as its kind may record it (in a transaction of its own: the job's rolled back). */
export type JobFailure = { job: ClaimedJob; error: string; attempts: number; final: boolean; retryAt: Date | null };

/**
 * Timed work a module above this one contributes: its kinds; the slow part (`prepare`: network
 * transfers), run before and outside the job's transaction, so that it holds neither a lock nor a
 * connection meanwhile; what then runs in the transaction (`run`, given what `prepare` answered): on
 * the job's request, locked, when the job names one (a copy to cloud storage; not run once the request
 * is gone), else on a record of its own that it locks itself (a share's expiry); and what a failed
 * attempt records.
 */
export type ContributedJobKind = {
  kinds: readonly string[];
  prepare?: (job: ClaimedJob, ctx: GraphQLContext) => Promise<unknown>;
  run: (job: ClaimedJob, run: Omit<JobContext, 'request'> & { request?: RequestRow }) => Promise<JobOutcome>;
  failed?: (tx: Tx, failure: JobFailure) => Promise<void>;
};

export const jobKinds = extensionPoint<ContributedJobKind>('job kinds');

/** The contributed kind that runs jobs of `kind`, if one does. */
export const contributedKind = (kind: string): ContributedJobKind | undefined =>
  jobKinds.values().find((contributed) => contributed.kinds.includes(kind));

/**
 * The periodic reminder's next due time after `now`: occurrences missed while the service was down
 * are skipped, not queued up, so a long pause ends with one reminder, never a burst.
 */
export function nextOccurrence(due: Date, intervalDays: number, now: Date): Date {
  const step = intervalDays * DAY_MS;
  const missed = Math.max(0, Math.floor((now.getTime() - due.getTime()) / step));
  return new Date(due.getTime() + (missed + 1) * step);
}

const ended = (request: RequestRow) => request.state === 'CLOSED' || request.state === 'EXPIRED';

/**
 * Whether a date of the request has come. A job's plan follows a change of the date only once the change's event is
 * consumed: meanwhile the request, locked and read now, says whether its time has come.
 */
const reached = (date: Date | null | undefined, now: Date) => !!date && date <= now;

export const JOB_HANDLERS: Record<JobKind, JobHandler> = {
  REMINDER: async (job, { ctx, tx, now, request }) => {
    if (request.reminders <= 0 || ended(request) || request.state === 'VERIFIED') return {};
    const due = new Date(job.due_at);
    // A submitted request is not reminded, but its schedule goes on: a rejection reopens it.
    if (remindable(request))
      await sendReminder(tx, ctx, request, {
        kind: 'PERIODIC',
        occurrence: `PERIODIC:${due.toISOString()}`,
        message: null,
        defer: true,
      });
    return { next: nextOccurrence(due, request.reminders, now) };
  },

  DEFERRED_REMINDER: async (job, { ctx, tx, request }) => {
    const payload = job.payload as {
      recipientIds: string[];
      kind: ReminderKind;
      message: string | null;
      reminderId: string;
      deferredAt: string;
    };
    if (remindable(request)) {
      await sendReminder(tx, ctx, request, {
        kind: payload.kind,
        occurrence: `DEFERRED:${payload.reminderId}`,
        message: payload.message,
        defer: false,
        only: payload.recipientIds,
        // A recipient reminded since (the next periodic reminder came first) is not reminded twice.
        unlessRemindedSince: new Date(payload.deferredAt),
      });
    }
    return {};
  },

  SCHEDULED_REMINDER: async (job, { ctx, tx, now, request }) => {
    const payload = job.payload as { message?: string | null; scheduledReminderId?: string };
    let message = payload.message ?? null;
    if (payload.scheduledReminderId) {
      const [row] = await tx.rows<{ status: string; message: string | null }>(
        'select status, message from scheduled_reminder where id = ? for update',
        [payload.scheduledReminderId],
      );
      if (row?.status !== 'PENDING') return {};
      message = row.message;
    }
    const sent = remindable(request)
      ? await sendReminder(tx, ctx, request, {
          kind: 'SCHEDULED',
          occurrence: `SCHEDULED:${job.key}`,
          message,
          defer: true,
        })
      : null;
    if (payload.scheduledReminderId) {
      await tx.execute('update scheduled_reminder set status = ?, sent_at = ?, updated_at = ? where id = ?', [
        sent ? 'SENT' : 'CANCELLED',
        sent ? now : null,
        now,
        payload.scheduledReminderId,
      ]);
    }
    return {};
  },

  EXPIRATION_WARNING: async (_job, { ctx, tx, now, request }) => {
    const expiresAt = request.expirationDate;
    if (!expiresAt || expiresAt <= now || !remindable(request)) return {};
    if (!reached(new Date(expiresAt.getTime() - ctx.settings.expirationWarningDays * DAY_MS), now)) return {};
    const state = transition(request.state, 'expiration-warning');
    // Warned before (its expiration moved since): the row stays as it is.
    const warned = state === request.state ? request : await tx.update(Request, request.id, { state });
    for (const recipient of await pendingRecipients(tx, warned, now)) {
      await queueRecipientMessage(tx, ctx, warned, recipient, 'EXPIRATION_WARNING', {
        requestName: warned.name,
        senderName: recipient.sender_name,
        recipientFirstName: recipient.first_name,
        expiresAt: expiresAt.toISOString(),
      });
    }
    await emitRequestEvent(tx, ctx, 'request.updated', warned, {
      updated: ['state'],
      action: 'request.expiration_warning',
    });
    return {};
  },

  EXPIRE: async (_job, { ctx, tx, now, request }) => {
    if (ended(request) || !reached(request.expirationDate, now)) return {};
    const expired = await tx.update(Request, request.id, { state: transition(request.state, 'expire') });
    const { documentIds, fileIds } = await removeRequestDocuments(tx, expired.id);
    await emitRequestEvent(tx, ctx, 'request.expired', expired, { details: { document_ids: documentIds } });
    return { fileIds };
  },

  AUTO_CLOSE: async (_job, { ctx, now, request }) => {
    if (!ended(request) && reached(request.autoCloseAt, now)) await closeRequest(ctx, request.id);
    return {};
  },

  RETENTION: async (_job, { ctx, tx, now, request }) => {
    if (request.state !== 'CLOSED') return {};
    // The days as they are now: a change that raced the close is still followed.
    const [settings] = await tx.rows<{ retention_days: number | null }>(
      'select retention_days from organization_settings where organization_id = ?',
      [request.organization.id],
    );
    if (!settings?.retention_days) return {};
    const due = new Date((request.closedAt ?? request.updatedAt).getTime() + settings.retention_days * DAY_MS);
    if (due > now) return { next: due };
    const { documentIds, fileIds } = await removeRequestDocuments(tx, request.id);
    if (documentIds.length === 0) return {};
    await emitRequestEvent(tx, ctx, 'request.updated', request, {
      action: 'request.retention_deleted',
      details: { document_ids: documentIds, retention_days: settings.retention_days },
    });
    return { fileIds };
  },

  ESCALATION: async (job, { ctx, tx, now, request }) => {
    const [rule] = await tx.rows<{
      id: string;
      condition: EscalationCondition;
      after_days: number;
      status: string;
      notify_user_id: string | null;
      notify_email: string | null;
      user_email: string | null;
    }>(
      `select e.id, e.condition, e.after_days, e.status, e.notify_user_id, e.notify_email, u.email as user_email
         from escalation e left join app_user u on u.id = coalesce(e.notify_user_id, ?)
        where e.id = ? for update of e`,
      [request.owner.id, job.payload.escalationId],
    );
    if (rule?.status !== 'PENDING' || !remindable(request)) return {};
    if (
      rule.condition === 'OVERDUE' &&
      !(request.dueDate && now.getTime() >= request.dueDate.getTime() + rule.after_days * DAY_MS)
    )
      return {};
    const waiting = (await pendingRecipients(tx, request, now)).filter(
      (r) => rule.condition === 'OVERDUE' || !r.opened_at,
    );
    if (waiting.length === 0) return {};
    const address = rule.notify_email ?? rule.user_email!;
    await queueNotification(tx, ctx.settings.secret, {
      organizationId: request.organization.id,
      requestId: request.id,
      to: rule.notify_email ? { address: true } : { userId: rule.notify_user_id ?? request.owner.id },
      channel: 'EMAIL',
      address,
      language: request.language,
      kind: 'ESCALATION',
      params: {
        requestName: request.name,
        requestId: request.id,
        condition: rule.condition,
        afterDays: rule.after_days,
        dueDate: request.dueDate?.toISOString() ?? null,
        recipientNames: waiting.map(
          (r) => [r.first_name, r.last_name].filter(Boolean).join(' ') || r.email || r.phone || r.id,
        ),
      },
      secrets: {},
    });
    await tx.execute(`update escalation set status = 'FIRED', fired_at = ?, updated_at = ? where id = ?`, [
      now,
      now,
      rule.id,
    ]);
    await recordActivity(tx, {
      organizationId: request.organization.id,
      requestId: request.id,
      action: 'escalation.fired',
      actor: ctx.viewer.actor,
      details: { escalation_id: rule.id, condition: rule.condition, notified: address },
    });
    return {};
  },
};
