import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type {
  EscalationCreateInput,
  EscalationUpdateInput,
  ReminderSendInput,
  ScheduledReminderCreateInput,
  ScheduledReminderUpdateInput,
} from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { User } from '../identity/identity.entities';
import { findVisibleRequest, requireVisibleRequestForUpdate } from '../requests/request.access';
import type { RequestRow } from '../requests/request.entities';
import { MAX_REMINDER_MESSAGE } from '../requests/request.limits';
import type { Ctx } from '../requests/request.service';
import { remindable, sendReminder } from './reminder.service';
import {
  Escalation,
  Reminder,
  ScheduledReminder,
  type EscalationRow,
  type JobKind,
  type ReminderRow,
  type ScheduledReminderRow,
} from './schedule.entities';
import { PLANNED, queuePlanned, type PlannedRow } from './schedule.planning';
import { MAX_ESCALATION_DAYS, MAX_ESCALATIONS, MAX_SCHEDULED_REMINDERS, MIN_ESCALATION_DAYS } from './schedule.limits';

const DAY_MS = 86_400_000;

/** A job to plan: a request's (`requestId`), or another record's, whose kind its module runs (`jobKinds`). */
export type Planned = {
  organizationId: string;
  requestId: string | null;
  kind: JobKind | string;
  key: string;
  dueAt: Date | null;
  payload: Record<string, unknown>;
};

/** Plans (or moves, or with no time cancels) the job `key`, in the caller's transaction. */
export async function planJob(tx: Tx, now: Date, job: Planned): Promise<void> {
  const rows = await tx.rows<PlannedRow>(
    `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?::jsonb, ?, 0, ?, ?)
     on conflict (key) do update set due_at = excluded.due_at, payload = excluded.payload, status = excluded.status, attempts = 0,
                                     last_error = null, updated_at = excluded.updated_at
     returning ${PLANNED}`,
    [
      job.organizationId,
      job.requestId,
      job.kind,
      job.key,
      job.dueAt ?? now,
      JSON.stringify(job.payload),
      job.dueAt ? 'PENDING' : 'CANCELLED',
      now,
      now,
    ],
  );
  await queuePlanned(tx, rows);
}

/** Cancels the job `key` (or each of the keys) if it is pending, in the caller's transaction. */
export async function cancelJob(tx: Tx, key: string | string[], now: Date): Promise<void> {
  const rows = await tx.rows<PlannedRow>(
    `update job set status = 'CANCELLED', updated_at = ? where key = any(?::text[]) and status = 'PENDING' returning ${PLANNED}`,
    [now, Array.isArray(key) ? key : [key]],
  );
  await queuePlanned(tx, rows);
}

// ---- Reminders sent ----

/** A reminder the viewer may see (`node(id)`): one of a request it sees. */
export async function getReminder(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ReminderRow | null> {
  const [reminder] = isUuid(id)
    ? await ctx.db.records(Reminder, 'select * from reminder where id = ? and organization_id = ?', [
        id,
        ctx.viewer.organizationId,
      ])
    : [];
  return reminder && (await findVisibleRequest(ctx.db, ctx.viewer, reminder.request.id)) ? reminder : null;
}

/** Reminds now every recipient who has not submitted (no deferral: the owner asked for it). */
export async function sendReminderNow(
  ctx: Ctx,
  requestId: string,
  input: ReminderSendInput | null | undefined,
): Promise<ReminderRow> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    new InputCheck().text(['message'], input?.message, { max: MAX_REMINDER_MESSAGE }).done();
    if (!remindable(request)) throw AppError.invalidState(`A request in state ${request.state} is not reminded`);
    const sent = await sendReminder(tx, ctx, request, {
      kind: 'MANUAL',
      occurrence: `MANUAL:${ctx.requestId}:${ctx.settings.clock.now().toISOString()}`,
      message: input?.message ?? null,
      defer: false,
      sentBy: ctx.viewer.userId,
    });
    if (!sent) throw AppError.invalidState('Every recipient has submitted: nobody is left to remind');
    return (await tx.records(Reminder, 'select * from reminder where id = ?', [sent.id]))[0];
  });
}

export function listReminders(
  ctx: Pick<Ctx, 'db'>,
  request: { id: string },
  args: PageArgs,
): Promise<Connection<ReminderRow>> {
  return paginate(
    { db: ctx.db, entity: Reminder, sql: 'select r.* from reminder r where r.request_id = ?', params: [request.id] },
    args,
    {
      property: 'sentAt',
      column: 'sent_at',
      direction: 'DESC',
    },
  );
}

// ---- Scheduled reminders ----

const checkFuture = (check: InputCheck, field: string[], value: Date | null | undefined, now: Date) => {
  check.date(field, value);
  if (value && value.getTime() <= now.getTime()) check.add(field, 'Must be in the future', 'OUT_OF_RANGE');
};

async function requireScheduledReminder(tx: Tx, request: RequestRow, id: string): Promise<ScheduledReminderRow> {
  const [row] = isUuid(id)
    ? await tx.records(
        ScheduledReminder,
        'select * from scheduled_reminder where id = ? and request_id = ? for update',
        [id, request.id],
      )
    : [];
  if (!row) throw AppError.notFound('Scheduled reminder');
  return row;
}

const scheduledJob = (request: RequestRow, id: string, sendAt: Date | null): Planned => ({
  organizationId: request.organization.id,
  requestId: request.id,
  kind: 'SCHEDULED_REMINDER',
  key: `scheduled:${id}`,
  dueAt: sendAt,
  payload: { scheduledReminderId: id },
});

export async function createScheduledReminder(
  ctx: Ctx,
  requestId: string,
  input: ScheduledReminderCreateInput,
): Promise<ScheduledReminderRow> {
  const now = ctx.settings.clock.now();
  return ctx.db.transaction(async (tx) => {
    // Tenancy first: another organization's request is a 404 whatever the input.
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const check = new InputCheck();
    checkFuture(check, ['sendAt'], input.sendAt, now);
    check.text(['message'], input.message, { max: MAX_REMINDER_MESSAGE }).done();
    const [{ count }] = await tx.rows<{ count: number }>(
      `select count(*)::int as count from scheduled_reminder where request_id = ? and status = 'PENDING'`,
      [request.id],
    );
    if (count >= MAX_SCHEDULED_REMINDERS)
      throw AppError.validation([
        {
          field: ['sendAt'],
          message: `A request holds at most ${MAX_SCHEDULED_REMINDERS} pending scheduled reminders`,
          code: 'TOO_MANY',
        },
      ]);
    const [row] = await tx.insert(ScheduledReminder, [
      {
        organization: request.organization.id,
        request: request.id,
        sendAt: input.sendAt,
        message: input.message ?? null,
        status: 'PENDING',
        sentAt: null,
      },
    ]);
    await planJob(tx, now, scheduledJob(request, row.id, input.sendAt));
    return row;
  });
}

export async function updateScheduledReminder(
  ctx: Ctx,
  requestId: string,
  id: string,
  input: ScheduledReminderUpdateInput,
): Promise<ScheduledReminderRow> {
  const now = ctx.settings.clock.now();
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const current = await requireScheduledReminder(tx, request, id);
    const check = new InputCheck();
    checkFuture(check, ['sendAt'], input.sendAt, now);
    if (input.sendAt === null) check.add(['sendAt'], 'Cannot be null', 'INVALID');
    check.text(['message'], input.message, { max: MAX_REMINDER_MESSAGE }).done();
    if (current.status !== 'PENDING')
      throw AppError.invalidState(`A scheduled reminder ${current.status.toLowerCase()} cannot change`);
    const sendAt = input.sendAt ?? current.sendAt;
    const message = input.message !== undefined ? input.message : current.message;
    await tx.execute('update scheduled_reminder set send_at = ?, message = ?, updated_at = ? where id = ?', [
      sendAt,
      message,
      now,
      current.id,
    ]);
    await planJob(tx, now, scheduledJob(request, current.id, sendAt));
    return { ...current, sendAt, message, updatedAt: now };
  });
}

export async function deleteScheduledReminder(ctx: Ctx, requestId: string, id: string): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const current = await requireScheduledReminder(tx, request, id);
    await tx.execute('delete from scheduled_reminder where id = ?', [current.id]);
    await cancelJob(tx, `scheduled:${current.id}`, ctx.settings.clock.now());
    return current.id;
  });
}

// ---- Escalations ----

async function requireEscalation(tx: Tx, request: RequestRow, id: string): Promise<EscalationRow> {
  const [row] = isUuid(id)
    ? await tx.records(Escalation, 'select * from escalation where id = ? and request_id = ? for update', [
        id,
        request.id,
      ])
    : [];
  if (!row) throw AppError.notFound('Escalation');
  return row;
}

export type EscalationFields = {
  condition: EscalationRow['condition'];
  afterDays: number;
  notifyUserId: string | null;
  notifyEmail: string | null;
};

/** A rule's fields as `escalationCreate` (and a request's `escalations`) give them. */
export const escalationFields = (input: EscalationCreateInput): EscalationFields => ({
  condition: input.condition,
  afterDays: input.afterDays,
  notifyUserId: input.notifyUserId ?? null,
  notifyEmail: input.notifyEmail?.trim() ?? null,
});

/**
 * Checks rules' fields, each rule's problems under `at(index)`: days in range, a user of the caller's organization or
 * an address, not both. One statement looks up the users of every rule.
 */
export async function checkEscalations(
  ctx: Pick<Ctx, 'viewer'>,
  db: Reader,
  check: InputCheck,
  rules: EscalationFields[],
  at: (index: number) => FieldPath,
): Promise<void> {
  const userIds = [
    ...new Set(rules.map((rule) => rule.notifyUserId).filter((id): id is string => id !== null && isUuid(id))),
  ];
  const known = new Set(
    userIds.length
      ? (
          await db.rows<{ id: string }>(
            `select id from ${db.table(User)} where id = any(?::uuid[]) and organization_id = ?`,
            [userIds, ctx.viewer.organizationId],
          )
        ).map((user) => user.id)
      : [],
  );
  rules.forEach((fields, index) => {
    const path = at(index);
    check
      .int([...path, 'afterDays'], fields.afterDays, { min: MIN_ESCALATION_DAYS, max: MAX_ESCALATION_DAYS })
      .uuid([...path, 'notifyUserId'], fields.notifyUserId)
      .email([...path, 'notifyEmail'], fields.notifyEmail);
    if (fields.notifyUserId && fields.notifyEmail)
      check.add([...path, 'notifyEmail'], 'Name a user or an address, not both', 'INVALID');
    if (fields.notifyUserId && isUuid(fields.notifyUserId) && !known.has(fields.notifyUserId))
      check.add([...path, 'notifyUserId'], 'Names no user of your organization', 'NOT_FOUND');
  });
}

async function checkEscalation(ctx: Ctx, tx: Tx, fields: EscalationFields): Promise<void> {
  const check = new InputCheck();
  await checkEscalations(ctx, tx, check, [fields], () => []);
  check.done();
}

/**
 * The escalation's job: due `afterDays` after the due date (OVERDUE; none without one) or the request's creation
 * (NOT_OPENED).
 */
export const escalationJob = (request: RequestRow, id: string, fields: EscalationFields): Planned => {
  const from = fields.condition === 'OVERDUE' ? request.dueDate : request.createdAt;
  return {
    organizationId: request.organization.id,
    requestId: request.id,
    kind: 'ESCALATION',
    key: `escalation:${id}`,
    dueAt: from ? new Date(from.getTime() + fields.afterDays * DAY_MS) : null,
    payload: { escalationId: id },
  };
};

export async function createEscalation(
  ctx: Ctx,
  requestId: string,
  input: EscalationCreateInput,
): Promise<EscalationRow> {
  const fields = escalationFields(input);
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    await checkEscalation(ctx, tx, fields);
    const [{ count }] = await tx.rows<{ count: number }>(
      'select count(*)::int as count from escalation where request_id = ?',
      [request.id],
    );
    if (count >= MAX_ESCALATIONS)
      throw AppError.validation([
        { field: [], message: `A request holds at most ${MAX_ESCALATIONS} escalations`, code: 'TOO_MANY' },
      ]);
    const [row] = await tx.insert(Escalation, [
      {
        organization: request.organization.id,
        request: request.id,
        condition: fields.condition,
        afterDays: fields.afterDays,
        notifyUser: fields.notifyUserId,
        notifyEmail: fields.notifyEmail,
        status: 'PENDING',
        firedAt: null,
      },
    ]);
    await planJob(tx, ctx.settings.clock.now(), escalationJob(request, row.id, fields));
    return row;
  });
}

export async function updateEscalation(
  ctx: Ctx,
  requestId: string,
  id: string,
  input: EscalationUpdateInput,
): Promise<EscalationRow> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const current = await requireEscalation(tx, request, id);
    if (current.status !== 'PENDING') throw AppError.invalidState('An escalation that fired cannot change');
    const check = new InputCheck();
    if (input.condition === null) check.add(['condition'], 'Cannot be null', 'INVALID');
    if (input.afterDays === null) check.add(['afterDays'], 'Cannot be null', 'INVALID');
    check.done();
    const notifyEmail =
      input.notifyEmail !== undefined
        ? (input.notifyEmail?.trim() ?? null)
        : input.notifyUserId
          ? null
          : (current.notifyEmail ?? null);
    const notifyUserId =
      input.notifyUserId !== undefined
        ? (input.notifyUserId ?? null)
        : input.notifyEmail
          ? null
          : (current.notifyUser?.id ?? null);
    const fields: EscalationFields = {
      condition: input.condition ?? current.condition,
      afterDays: input.afterDays ?? current.afterDays,
      notifyUserId,
      notifyEmail,
    };
    await checkEscalation(ctx, tx, fields);
    const now = ctx.settings.clock.now();
    await tx.execute(
      'update escalation set condition = ?, after_days = ?, notify_user_id = ?, notify_email = ?, updated_at = ? where id = ?',
      [fields.condition, fields.afterDays, fields.notifyUserId, fields.notifyEmail, now, current.id],
    );
    await planJob(tx, now, escalationJob(request, current.id, fields));
    return (await tx.records(Escalation, 'select * from escalation where id = ?', [current.id]))[0];
  });
}

export async function deleteEscalation(ctx: Ctx, requestId: string, id: string): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, requestId);
    const current = await requireEscalation(tx, request, id);
    await tx.execute('delete from escalation where id = ?', [current.id]);
    await cancelJob(tx, `escalation:${current.id}`, ctx.settings.clock.now());
    return current.id;
  });
}
