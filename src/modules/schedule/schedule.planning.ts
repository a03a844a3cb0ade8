import type { EmitHook, EmittedEvent } from '../../kernel/events/outbox';
import type { RetentionChange } from '../organizations/organization.service';
import { JOB_KINDS } from './schedule.entities';

// Jobs are planned in the statement of the event that changes what they depend on (an outbox hook,
// as webhook deliveries are), so a request's dates and its jobs never disagree and a change costs no
// statement more. Each hook touches rows of its own: one statement may not change a row twice.

/** Actions after which nothing timed is left to do for the request. */
const ENDING_ACTIONS = new Set(['request.closed', 'request.deleted', 'request.expired', 'request.verified']);

const changed = (event: EmittedEvent, ...fields: string[]) =>
  event.action === 'request.created' || fields.some((field) => event.updated?.includes(field));

/**
 * Cancels every pending job of this module's kinds of a request that was closed, deleted, expired or
 * verified; work other modules queue (a copy to cloud storage) may follow the end. A job in flight
 * keeps its lease: its own finishing write then settles it (the job that expired the request is DONE;
 * another waited for the request's lock, found it ended and did nothing).
 */
export const cancelEndedJobs: EmitHook = {
  sql: `update job set status = 'CANCELLED', updated_at = ?
         where ?::boolean and request_id = ?::uuid and status = 'PENDING' and kind = any(?::text[])`,
  params: (event) => [event.createdAt, ENDING_ACTIONS.has(event.action), event.requestId, `{${JOB_KINDS.join(',')}}`],
  applies: (event) => ENDING_ACTIONS.has(event.action),
};

/**
 * (Re)plans the jobs a request's own fields decide: the periodic reminder (`reminders` days from
 * `first_reminder_date`, or from now), the expiration warning and expiry (`expiration_date`: the
 * warning's job is due at the expiration and claimed EXPIRATION_WARNING_DAYS early), auto-close and
 * the `reminder_schedule` entries (keyed by their time, so an entry already sent is not sent again
 * when the schedule is saved with it, and two entries at one time are one reminder). A cleared date cancels its job.
 */
export const planRequestJobs: EmitHook = {
  sql: `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
        select gen_random_uuid(), r.organization_id, r.id, plan.kind, plan.key, coalesce(plan.due_at, ?), plan.payload,
               case when plan.due_at is null then 'CANCELLED' else 'PENDING' end, 0, ?, ?
          from request r
          cross join lateral (
            select 'REMINDER', 'reminder:' || r.id,
                   case when r.reminders > 0 then coalesce(r.first_reminder_date, ?::timestamptz + r.reminders * interval '1 day') end, '{}'::jsonb
             where ?::boolean
            union all select 'EXPIRATION_WARNING', 'expiration-warning:' || r.id, r.expiration_date, '{}'::jsonb where ?::boolean
            union all select 'EXPIRE', 'expire:' || r.id, r.expiration_date, '{}'::jsonb where ?::boolean
            union all select 'AUTO_CLOSE', 'auto-close:' || r.id, r.auto_close_at, '{}'::jsonb where ?::boolean
            union all select 'SCHEDULED_REMINDER', 'schedule:' || r.id || ':' || s.send_at, s.send_at::timestamptz, jsonb_build_object('message', s.message)
                        from (select distinct on (e.entry ->> 'sendAt') e.entry ->> 'sendAt', e.entry -> 'message'
                                from jsonb_array_elements(r.reminder_schedule) as e (entry)) as s (send_at, message)
                       where ?::boolean
            union all select 'SCHEDULED_REMINDER', j.key, null, j.payload
                        from job j
                       where ?::boolean and j.request_id = r.id and j.key like 'schedule:%' and j.status = 'PENDING'
                         and not exists (select 1 from jsonb_array_elements(r.reminder_schedule) as s (entry) where j.key = 'schedule:' || r.id || ':' || (s.entry ->> 'sendAt'))
          ) as plan (kind, key, due_at, payload)
         where r.id = ?::uuid and (plan.due_at is not null or exists (select 1 from job j where j.key = plan.key))
        on conflict (key) do update
           set due_at = excluded.due_at, payload = excluded.payload, status = excluded.status, attempts = 0, last_error = null,
               lease = null, locked_until = null, updated_at = excluded.updated_at
         where job.status <> 'DONE' or job.due_at is distinct from excluded.due_at`,
  applies: (event) =>
    changed(event, 'reminders', 'first_reminder_date', 'expiration_date', 'reminder_schedule', 'auto_close_at'),
  params: (event) => {
    const reminders = changed(event, 'reminders', 'first_reminder_date');
    const expiry = changed(event, 'expiration_date');
    const schedule = changed(event, 'reminder_schedule');
    const any = reminders || expiry || schedule || changed(event, 'auto_close_at');
    return [
      event.createdAt,
      event.createdAt,
      event.createdAt,
      event.createdAt,
      reminders,
      expiry,
      expiry,
      changed(event, 'auto_close_at'),
      schedule,
      schedule && event.action !== 'request.created',
      // Another event plans nothing: the id is null and the statement inserts no row.
      any ? event.requestId : null,
    ];
  },
};

/** Moves the jobs of a request's OVERDUE escalations not yet fired when its `due_date` changes. */
export const planOverdueEscalations: EmitHook = {
  sql: `update job j set due_at = coalesce(r.due_date + e.after_days * interval '1 day', j.due_at),
                         status = case when r.due_date is null then 'CANCELLED' else 'PENDING' end,
                         attempts = 0, lease = null, locked_until = null, updated_at = ?
          from escalation e join request r on r.id = e.request_id
         where ?::boolean and e.request_id = ?::uuid and e.condition = 'OVERDUE' and e.status = 'PENDING' and j.key = 'escalation:' || e.id`,
  params: (event) => [
    event.createdAt,
    event.action !== 'request.created' && changed(event, 'due_date'),
    event.requestId,
  ],
  applies: (event) => event.action !== 'request.created' && changed(event, 'due_date'),
};

/**
 * Plans a closed request's RETENTION job: its documents go `retention_days` after it closed. The
 * organization's settings row is read FOR SHARE, so a change of the days waits for the close to
 * commit and then re-plans it (`replanRetention`), or the close waits and reads the new days.
 */
export const planRetention: EmitHook = {
  sql: `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
        select gen_random_uuid(), r.organization_id, r.id, 'RETENTION', 'retention:' || r.id,
               coalesce(r.closed_at, ?) + s.retention_days * interval '1 day', '{}'::jsonb, 'PENDING', 0, ?, ?
          from request r join organization_settings s on s.organization_id = r.organization_id
         where r.id = ?::uuid and s.retention_days is not null
           for share of s
        on conflict (key) do nothing`,
  params: (event) => [
    event.createdAt,
    event.createdAt,
    event.createdAt,
    event.action === 'request.closed' ? event.requestId : null,
  ],
  applies: (event) => event.action === 'request.closed',
};

/**
 * The organization's `retention_days` changed (in the settings' transaction): every closed request's
 * RETENTION job not yet done moves to the new day, one is planned for those closed while there was
 * none, and clearing the days cancels them (the documents are kept).
 */
export const replanRetention: RetentionChange = async (tx, { organizationId, retentionDays, now }) => {
  if (retentionDays === null) {
    await tx.execute(
      `update job set status = 'CANCELLED', lease = null, locked_until = null, updated_at = ? where organization_id = ? and kind = 'RETENTION' and status = 'PENDING'`,
      [now, organizationId],
    );
    return;
  }
  await tx.execute(
    `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
     select gen_random_uuid(), r.organization_id, r.id, 'RETENTION', 'retention:' || r.id,
            coalesce(r.closed_at, r.updated_at) + ? * interval '1 day', '{}'::jsonb, 'PENDING', 0, ?, ?
       from request r
      where r.organization_id = ? and r.state = 'CLOSED' and r.deleted_at is null
     on conflict (key) do update
        set due_at = excluded.due_at, status = 'PENDING', attempts = 0, last_error = null, lease = null, locked_until = null, updated_at = excluded.updated_at
      where job.status <> 'DONE'`,
    [retentionDays, now, now, organizationId],
  );
};
