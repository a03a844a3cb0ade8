import type { Tx } from '../../kernel/db/db';
import type { Consumer } from '../../kernel/events/consumers';
import type { EmittedEvent } from '../../kernel/events/outbox';
import { addJobs, removeJobs } from '../../kernel/jobs/queue';
import type { RetentionChange } from '../organizations/organization.service';
import { JOB_KINDS, type JobStatus } from './schedule.entities';

// A `job` row is the plan of one thing that comes due (its key names it); the job queue's `schedule.run`
// job of the same key (`timed:<key>`) carries it out at its time. Every statement that plans, moves or
// cancels rows returns them, and `queuePlanned` makes the queue follow them in the same transaction.

/** The job queue's task that runs a `job` row (schedule.tasks.ts). */
export const RUN_TASK = 'schedule.run';

/** A row as a planning statement returns it (`returning ${PLANNED}`): when its job is to run. */
export type PlannedRow = { id: string; key: string; status: JobStatus; run_at: Date };

/** What a planning statement returns. The expiration warning runs before its `due_at`: its planner says so itself. */
export const PLANNED = 'id, key, status, due_at as run_at';

/**
 * Makes the job queue follow the rows a transaction planned: a pending row's job is added at its time, or moved there
 * (the same key replaces a job that waits), a cancelled row's job is removed. The last word on a key counts.
 */
export async function queuePlanned(tx: Tx, rows: readonly PlannedRow[]): Promise<void> {
  const last = [...new Map(rows.map((row) => [row.key, row])).values()];
  await removeJobs(
    tx,
    last.filter((row) => row.status === 'CANCELLED').map((row) => `timed:${row.key}`),
  );
  await addJobs(
    tx,
    RUN_TASK,
    last
      .filter((row) => row.status === 'PENDING')
      .map((row) => ({ payload: { jobId: row.id }, key: `timed:${row.key}`, runAt: row.run_at })),
  );
}

/** Actions after which nothing timed is left to do for the request. */
const ENDING_ACTIONS = new Set(['request.closed', 'request.deleted', 'request.expired', 'request.verified']);

const changed = (event: EmittedEvent, ...fields: string[]) =>
  event.action === 'request.created' || fields.some((field) => event.updated?.includes(field));

/**
 * Cancels every pending job of this module's kinds of a request that was closed, deleted, expired or verified; work
 * other modules queue (a copy to cloud storage) may follow the end, and so does a close's own retention (which a
 * change of the organization's days may have planned already). A job under way holds its row: it finishes first,
 * having found the request ended and done nothing, or the cancel waits for it.
 */
function cancelEndedJobs(tx: Tx, event: EmittedEvent): Promise<PlannedRow[]> {
  const kinds = JOB_KINDS.filter((kind) => kind !== 'RETENTION' || event.action !== 'request.closed');
  return tx.rows<PlannedRow>(
    `update job set status = 'CANCELLED', updated_at = ?
      where request_id = ? and status = 'PENDING' and kind = any(?::text[])
      returning ${PLANNED}`,
    [event.createdAt, event.requestId, kinds],
  );
}

/**
 * (Re)plans the jobs of the request's fields the event changed: the periodic reminder (`reminders` days from
 * `first_reminder_date`, or from the event), the expiration warning and expiry (`expiration_date`: the warning's job is
 * due at the expiration and runs EXPIRATION_WARNING_DAYS early), auto-close and the `reminder_schedule` entries (keyed
 * by their time, so an entry already sent is not sent again when the schedule is saved with it, and two entries at one
 * time are one reminder). A cleared date cancels its job. The request's fields are read as they are now: a later
 * change's own event plans again. `events` change the same fields of different requests (one update, or creations).
 */
function planRequestJobs(tx: Tx, events: readonly EmittedEvent[], warningDays: number): Promise<PlannedRow[]> | null {
  const [event] = events;
  const plans: string[] = [];
  if (changed(event, 'reminders', 'first_reminder_date')) {
    plans.push(`select 'REMINDER', 'reminder:' || r.id,
                       case when r.reminders > 0 then coalesce(r.first_reminder_date, ev.at + r.reminders * interval '1 day') end, '{}'::jsonb`);
  }
  if (changed(event, 'expiration_date'))
    plans.push(
      `select 'EXPIRATION_WARNING', 'expiration-warning:' || r.id, r.expiration_date, '{}'::jsonb`,
      `select 'EXPIRE', 'expire:' || r.id, r.expiration_date, '{}'::jsonb`,
    );
  if (changed(event, 'auto_close_at'))
    plans.push(`select 'AUTO_CLOSE', 'auto-close:' || r.id, r.auto_close_at, '{}'::jsonb`);
  if (changed(event, 'reminder_schedule')) {
    plans.push(`select 'SCHEDULED_REMINDER', 'schedule:' || r.id || ':' || s.send_at, s.send_at::timestamptz, jsonb_build_object('message', s.message)
                  from (select distinct on (e.entry ->> 'sendAt') e.entry ->> 'sendAt', e.entry -> 'message'
                          from jsonb_array_elements(r.reminder_schedule) as e (entry)) as s (send_at, message)`);
    // Entries the saved schedule no longer holds are cancelled (a new request has none yet).
    if (event.action !== 'request.created')
      plans.push(`select 'SCHEDULED_REMINDER', j.key, null, j.payload
                    from job j
                   where j.request_id = r.id and j.key like 'schedule:%' and j.status = 'PENDING'
                     and not exists (select 1 from jsonb_array_elements(r.reminder_schedule) as s (entry) where j.key = 'schedule:' || r.id || ':' || (s.entry ->> 'sendAt'))`);
  }
  if (plans.length === 0) return null;
  return tx.rows<PlannedRow>(
    `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
     select gen_random_uuid(), r.organization_id, r.id, plan.kind, plan.key, coalesce(plan.due_at, ev.at), plan.payload,
            case when plan.due_at is null then 'CANCELLED' else 'PENDING' end, 0, ev.at, ev.at
       from unnest(?::uuid[], ?::timestamptz[]) as ev (request_id, at)
       join request r on r.id = ev.request_id
      cross join lateral (${plans.join(' union all ')}) as plan (kind, key, due_at, payload)
      where plan.due_at is not null or exists (select 1 from job j where j.key = plan.key)
     on conflict (key) do update
        set due_at = excluded.due_at, payload = excluded.payload, status = excluded.status, attempts = 0, last_error = null,
            updated_at = excluded.updated_at
      where job.status <> 'DONE' or job.due_at is distinct from excluded.due_at
     returning id, key, status,
               case when kind = 'EXPIRATION_WARNING' then due_at - ? * interval '1 day' else due_at end as run_at`,
    [events.map((e) => e.requestId), events.map((e) => e.createdAt), warningDays],
  );
}

/** Whether the request's `due_date` changed, which moves its OVERDUE escalations (a new request's are planned new). */
const movesEscalations = (event: EmittedEvent) => event.action !== 'request.created' && changed(event, 'due_date');

/**
 * Plans the jobs of the request's escalation rules that have none yet: those given with the request on create or
 * update (`escalations`), due as `escalationCreate` plans its own (`escalationJob`): `after_days` after the due date
 * (OVERDUE; cancelled while there is none, so a due date set later moves it) or the request's creation (NOT_OPENED).
 */
function planNewEscalations(tx: Tx, event: EmittedEvent): Promise<PlannedRow[]> {
  return tx.rows<PlannedRow>(
    `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
     select gen_random_uuid(), e.organization_id, e.request_id, 'ESCALATION', 'escalation:' || e.id, coalesce(plan.due_at, ?),
            jsonb_build_object('escalationId', e.id), case when plan.due_at is null then 'CANCELLED' else 'PENDING' end, 0, ?, ?
       from escalation e
       join request r on r.id = e.request_id
      cross join lateral (select case when e.condition = 'OVERDUE' then r.due_date else r.created_at end
                                 + e.after_days * interval '1 day') as plan (due_at)
      where e.request_id = ? and e.status = 'PENDING' and not exists (select 1 from job j where j.key = 'escalation:' || e.id)
     on conflict (key) do nothing
     returning ${PLANNED}`,
    [event.createdAt, event.createdAt, event.createdAt, event.requestId],
  );
}

/**
 * Whether the request's view in the event shows escalation rules not fired yet: without any, `planNewEscalations` has
 * nothing to plan (a rule added later plans its own job).
 */
const showsPendingEscalations = (event: EmittedEvent) =>
  (event.data.escalations as { status: string }[] | undefined)?.some((rule) => rule.status === 'PENDING') ?? true;

/** Moves the jobs of a request's OVERDUE escalations not yet fired when its `due_date` changes. */
function planOverdueEscalations(tx: Tx, event: EmittedEvent): Promise<PlannedRow[]> {
  return tx.rows<PlannedRow>(
    `update job j set due_at = coalesce(r.due_date + e.after_days * interval '1 day', j.due_at),
                      status = case when r.due_date is null then 'CANCELLED' else 'PENDING' end,
                      attempts = 0, updated_at = ?
       from escalation e join request r on r.id = e.request_id
      where e.request_id = ? and e.condition = 'OVERDUE' and e.status = 'PENDING' and j.key = 'escalation:' || e.id
      returning j.id, j.key, j.status, j.due_at as run_at`,
    [event.createdAt, event.requestId],
  );
}

/**
 * Plans a closed request's RETENTION job: its documents go `retention_days` after it closed. The organization's
 * settings row is read FOR SHARE, so a change of the days waits for this to commit and then re-plans it
 * (`replanRetention`); one that committed first has planned it already (closed requests are its to plan), and it stays.
 */
function planRetention(tx: Tx, event: EmittedEvent): Promise<PlannedRow[]> {
  return tx.rows<PlannedRow>(
    `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
     select gen_random_uuid(), r.organization_id, r.id, 'RETENTION', 'retention:' || r.id,
            coalesce(r.closed_at, ?) + s.retention_days * interval '1 day', '{}'::jsonb, 'PENDING', 0, ?, ?
       from request r join organization_settings s on s.organization_id = r.organization_id
      where r.id = ? and s.retention_days is not null
        for share of s
     on conflict (key) do nothing
     returning ${PLANNED}`,
    [event.createdAt, event.createdAt, event.createdAt, event.requestId],
  );
}

/**
 * The timed work that follows a request's events: what its end cancels, what its dates plan, its escalation rules
 * given with it planned and its OVERDUE ones moved with its due date, and its retention once closed. Each statement returns the rows it changed, which the job
 * queue then follows.
 */
export const scheduleConsumer: Consumer = {
  name: 'schedule',
  applies: (event) =>
    event.requestId != null &&
    (ENDING_ACTIONS.has(event.action) ||
      changed(
        event,
        'reminders',
        'first_reminder_date',
        'expiration_date',
        'reminder_schedule',
        'auto_close_at',
        'escalations',
      ) ||
      movesEscalations(event)),
  // New requests' dates are planned together (each request's creation comes before its other events), and the job
  // queue follows the rows of all the events at once, in one statement.
  run: async (tx, events, { settings }) => {
    const created = events.filter((event) => event.action === 'request.created');
    const rows: PlannedRow[] = created.length
      ? ((await planRequestJobs(tx, created, settings.expirationWarningDays)) ?? [])
      : [];
    for (const event of events) {
      if (ENDING_ACTIONS.has(event.action)) rows.push(...(await cancelEndedJobs(tx, event)));
      const planned =
        event.action !== 'request.created' && planRequestJobs(tx, [event], settings.expirationWarningDays);
      if (planned) rows.push(...(await planned));
      if (movesEscalations(event)) rows.push(...(await planOverdueEscalations(tx, event)));
      if (changed(event, 'escalations') && showsPendingEscalations(event))
        rows.push(...(await planNewEscalations(tx, event)));
      if (event.action === 'request.closed') rows.push(...(await planRetention(tx, event)));
    }
    await queuePlanned(tx, rows);
  },
};

/**
 * The organization's `retention_days` changed (in the settings' transaction): every closed request's RETENTION job not
 * yet done moves to the new day, one is planned for those closed while there was none, and clearing the days cancels
 * them (the documents are kept).
 */
export const replanRetention: RetentionChange = async (tx, { organizationId, retentionDays, now }) => {
  const rows =
    retentionDays === null
      ? await tx.rows<PlannedRow>(
          `update job set status = 'CANCELLED', updated_at = ?
            where organization_id = ? and kind = 'RETENTION' and status = 'PENDING'
            returning ${PLANNED}`,
          [now, organizationId],
        )
      : await tx.rows<PlannedRow>(
          `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
           select gen_random_uuid(), r.organization_id, r.id, 'RETENTION', 'retention:' || r.id,
                  coalesce(r.closed_at, r.updated_at) + ? * interval '1 day', '{}'::jsonb, 'PENDING', 0, ?, ?
             from request r
            where r.organization_id = ? and r.state = 'CLOSED' and r.deleted_at is null
           on conflict (key) do update
              set due_at = excluded.due_at, status = 'PENDING', attempts = 0, last_error = null, updated_at = excluded.updated_at
            where job.status <> 'DONE'
           returning ${PLANNED}`,
          [retentionDays, now, now, organizationId],
        );
  await queuePlanned(tx, rows);
};
