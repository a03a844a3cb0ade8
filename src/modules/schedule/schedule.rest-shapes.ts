import { Type, type Static } from '@sinclair/typebox';
import type {
  RestEscalationFragment,
  RestReminderFragment,
  RestScheduledReminderFragment,
} from '../../generated/operations';
import { Body, Nullable, StringEnum, Uuid } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import {
  ESCALATION_CONDITIONS,
  ESCALATION_STATUSES,
  REMINDER_KINDS,
  SCHEDULED_REMINDER_STATUSES,
} from './schedule.entities';
import { MAX_ESCALATION_DAYS, MIN_ESCALATION_DAYS } from './schedule.limits';

// API-DECISIONS, "Bodies of the named operations": reminders, scheduled reminders and escalations
// (whose values are all strings, as spec 4.8 shows them).

type RecipientEntry = RestReminderFragment['recipients'][number];
type MessageEntry = RecipientEntry['messages'][number];

const Message = restShape((field: Field<MessageEntry>) => ({
  notification_id: Type.String(),
  channel: Type.String(),
  address: Type.String(),
  status: Type.String(),
  fallback_for: field(Nullable(Type.String()), (message) => message.fallbackFor ?? null),
}));

const Recipient = restShape((field: Field<RecipientEntry>) => ({
  recipient_id: Type.String(),
  status: StringEnum(['SENT', 'DEFERRED'] as const),
  deferred_until: field(Nullable(Type.String()), (entry) => entry.deferredUntil ?? null),
  messages: field(Type.Array(Message.schema), (entry) => entry.messages.map(Message.map)),
}));

export const { schema: ReminderBody, map: restReminder } = restShape((field: Field<RestReminderFragment>) => ({
  id: Type.String(),
  request_id: Type.String(),
  sent_at: Type.String(),
  kind: StringEnum(REMINDER_KINDS),
  message: field(Nullable(Type.String()), (reminder) => reminder.message ?? null),
  sent_by: field(Nullable(Type.String()), (reminder) => reminder.sentBy?.id ?? null),
  recipients: field(Type.Array(Recipient.schema), (reminder) => reminder.recipients.map(Recipient.map)),
}));

export const { schema: ScheduledReminderBody, map: restScheduledReminder } = restShape(
  (field: Field<RestScheduledReminderFragment>) => ({
    id: Type.String(),
    request_id: Type.String(),
    send_at: Type.String(),
    message: field(Nullable(Type.String()), (reminder) => reminder.message ?? null),
    status: StringEnum(SCHEDULED_REMINDER_STATUSES),
    sent_at: field(Nullable(Type.String()), (reminder) => reminder.sentAt ?? null),
  }),
);

export const { schema: EscalationBody, map: restEscalation } = restShape((field: Field<RestEscalationFragment>) => ({
  id: Type.String(),
  request_id: Type.String(),
  condition: StringEnum(ESCALATION_CONDITIONS),
  after_days: field(Type.String(), (escalation) => String(escalation.afterDays)),
  // API-DECISIONS: string values only, so what is not set is left out rather than null.
  notify_user_id: field(Type.Optional(Type.String()), (escalation) => escalation.notifyUser?.id),
  notify_email: field(Type.Optional(Type.String()), (escalation) => escalation.notifyEmail ?? undefined),
  status: StringEnum(ESCALATION_STATUSES),
  created_at: Type.String(),
  fired_at: field(Type.Optional(Type.String()), (escalation) => escalation.firedAt ?? undefined),
}));

export const AfterDays = Type.Integer({
  minimum: MIN_ESCALATION_DAYS,
  maximum: MAX_ESCALATION_DAYS,
  description: `days, ${MIN_ESCALATION_DAYS} to ${MAX_ESCALATION_DAYS}`,
});

/** The body of `POST /requests/{id}/escalations`, and of each element of a request's `escalations`. */
export const EscalationCreateBody = Body(
  {
    condition: StringEnum(ESCALATION_CONDITIONS),
    after_days: AfterDays,
    notify_user_id: Nullable(Uuid()),
    notify_email: Nullable(Type.String({ maxLength: 320 })),
  },
  ['condition', 'after_days'],
);

/** An escalation create body as GraphQL input. */
export const escalationInputFromRest = (body: Static<typeof EscalationCreateBody>) => ({
  condition: body.condition,
  afterDays: body.after_days,
  notifyUserId: body.notify_user_id ?? null,
  notifyEmail: body.notify_email ?? null,
});
