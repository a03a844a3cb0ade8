import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';
import { Request } from '../requests/request.entities';

export const JOB_KINDS = [
  'REMINDER',
  'DEFERRED_REMINDER',
  'SCHEDULED_REMINDER',
  'EXPIRATION_WARNING',
  'EXPIRE',
  'AUTO_CLOSE',
  'ESCALATION',
  'RETENTION',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** PENDING until it runs (DONE), its reason goes away (CANCELLED), or its last attempt fails (FAILED). */
export const JOB_STATUSES = ['PENDING', 'DONE', 'CANCELLED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Something that comes due for a request (or a share): the plan, which a `schedule.run` job of the job queue carries
 * out at its time (schedule.tasks.ts).
 */
export const Job = defineEntity({
  name: 'Job',
  tableName: 'job',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    /** The request it is for; null for another record's job (a share's, see `jobKinds`). */
    request: () => p.manyToOne(Request).ref().nullable(),
    /** One of JOB_KINDS for a request's job, else a kind its module contributes to `jobKinds`. */
    kind: p.text(),
    /** What the job is for (`reminder:<request id>`, `escalation:<id>`): one row per key. */
    key: p.text().unique(),
    dueAt: p.datetime(),
    payload: p.json<Record<string, unknown>>(),
    status: p.enum([...JOB_STATUSES]),
    attempts: p.integer(),
    lastError: p.text().nullable(),
    doneAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type Job = InferEntity<typeof Job>;
export type JobRow = Row<Job>;

export const REMINDER_KINDS = ['MANUAL', 'PERIODIC', 'SCHEDULED'] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];

/** One message of a reminder: a notification, or the SMS that replaced a bounced mail (`fallbackFor`). */
export type ReminderMessage = {
  notificationId: string;
  channel: 'EMAIL' | 'SMS';
  address: string;
  fallbackFor?: string | null;
};

/** What happened for one recipient of a reminder. */
export type ReminderRecipient = {
  recipientId: string;
  /** SENT: queued on its channels; DEFERRED: it was active in the portal, so it is reminded a day later. */
  status: 'SENT' | 'DEFERRED';
  messages: ReminderMessage[];
  deferredUntil?: string | null;
};

/** A reminder sent (or deferred) to a request's recipients. */
export const Reminder = defineEntity({
  name: 'Reminder',
  tableName: 'reminder',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    kind: p.enum([...REMINDER_KINDS]),
    /** Unique per request: the occurrence it is (`PERIODIC:<due time>`), so none is sent twice. */
    occurrence: p.text(),
    message: p.text().nullable(),
    recipients: p.json<ReminderRecipient[]>(),
    sentBy: () => p.manyToOne(User).ref().nullable(),
    sentAt: p.datetime(),
  },
});
export type Reminder = InferEntity<typeof Reminder>;
export type ReminderRow = Row<Reminder>;

export const SCHEDULED_REMINDER_STATUSES = ['PENDING', 'SENT', 'CANCELLED'] as const;
export type ScheduledReminderStatus = (typeof SCHEDULED_REMINDER_STATUSES)[number];

export const ScheduledReminder = defineEntity({
  name: 'ScheduledReminder',
  tableName: 'scheduled_reminder',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    sendAt: p.datetime(),
    message: p.text().nullable(),
    status: p.enum([...SCHEDULED_REMINDER_STATUSES]),
    sentAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type ScheduledReminder = InferEntity<typeof ScheduledReminder>;
export type ScheduledReminderRow = Row<ScheduledReminder>;

export const ESCALATION_CONDITIONS = ['OVERDUE', 'NOT_OPENED'] as const;
export type EscalationCondition = (typeof ESCALATION_CONDITIONS)[number];
export const ESCALATION_STATUSES = ['PENDING', 'FIRED'] as const;

export const Escalation = defineEntity({
  name: 'Escalation',
  tableName: 'escalation',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    condition: p.enum([...ESCALATION_CONDITIONS]),
    afterDays: p.integer(),
    notifyUser: () => p.manyToOne(User).ref().nullable(),
    notifyEmail: p.string().length(320).nullable(),
    status: p.enum([...ESCALATION_STATUSES]),
    firedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type Escalation = InferEntity<typeof Escalation>;
export type EscalationRow = Row<Escalation>;
