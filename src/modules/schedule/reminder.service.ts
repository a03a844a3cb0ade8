import { randomUUID } from 'node:crypto';
import type { Reader, Tx } from '../../kernel/db/db';
import { recordActivity } from '../activity/activity.service';
import { queueCopy, queueNotification } from '../notifications/notification.service';
import type { NotificationKind } from '../notifications/notification.entities';
import type { BounceHandler } from '../notifications/notification.worker';
import type { TemplateParams } from '../notifications/notification.templates';
import type { RequestRow } from '../requests/request.entities';
import type { Language } from '../requests/request.enums';
import { OPEN_STATES } from '../requests/request.states';
import { emitRequestEvent, type Ctx } from '../requests/request.service';
import type { ReminderKind, ReminderMessage, ReminderRecipient } from './schedule.entities';
import { REMINDER_DEFER_MS, REMINDER_MIN_GAP_MS } from './schedule.limits';
import { PLANNED, queuePlanned, type PlannedRow } from './schedule.planning';

/** States in which recipients are reminded: open, and sent (a draft has told nobody yet). */
export const remindable = (request: Pick<RequestRow, 'state' | 'deletedAt'>) =>
  !request.deletedAt && request.state !== 'PRE_LINK_GENERATED' && OPEN_STATES.includes(request.state);

type PendingRecipient = {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  send_method: string;
  /** Its own language, when it has one (else the request's). */
  language: Language | null;
  /** When it first opened its link or signed in (NOT_OPENED escalations). */
  opened_at: Date | null;
  active: boolean;
  /** When a reminder last went out to it. */
  reminded_at: Date | null;
  sender_name: string;
};

/**
 * The request's recipients who have not submitted since the owner last asked for changes (a
 * submission before a rejection does not count), with whether each was active in the portal within
 * REMINDER_DEFER_MS of `now` (signed in, or any action in the activity log).
 */
export function pendingRecipients(
  db: Reader,
  request: Pick<RequestRow, 'id'>,
  now: Date,
  only?: string[],
): Promise<PendingRecipient[]> {
  const since = new Date(now.getTime() - REMINDER_DEFER_MS);
  return db.rows<PendingRecipient>(
    `select rc.id, rc.first_name, rc.last_name, rc.email, rc.phone, rc.send_method, rc.language, coalesce(ra.opened_at, ra.signed_in_at) as opened_at,
            (ra.signed_in_at > ? or exists (select 1 from activity a where a.request_id = r.id and a.actor_type = 'RECIPIENT' and a.actor_id = rc.id and a.created_at > ?))
              as active,
            coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email) as sender_name,
            (select max(rm.sent_at) from reminder rm
              where rm.request_id = r.id and rm.recipients @> jsonb_build_array(jsonb_build_object('recipientId', rc.id::text, 'status', 'SENT'))) as reminded_at
       from recipient rc
       join request r on r.id = rc.request_id
       join app_user u on u.id = r.owner_id
       left join recipient_access ra on ra.recipient_id = rc.id
      where rc.request_id = ? and (?::uuid[] is null or rc.id = any(?::uuid[]))
        and not exists (select 1 from submission s where s.recipient_id = rc.id
                         and s.created_at > coalesce((r.rejection ->> 'rejectedAt')::timestamptz, '-infinity'))
      order by rc.position`,
    [since, since, request.id, only ?? null, only ?? null],
  );
}

/** The channels a recipient is reached on, as invitations reach it (notification.service.ts). */
function channelsOf(recipient: Pick<PendingRecipient, 'email' | 'phone' | 'send_method'>): ['EMAIL' | 'SMS', string][] {
  const channels: ['EMAIL' | 'SMS', string][] = [];
  if (recipient.email && (recipient.send_method !== 'SMS' || !recipient.phone))
    channels.push(['EMAIL', recipient.email]);
  if (recipient.phone && (['SMS', 'BOTH', 'MULTIPLE'].includes(recipient.send_method) || !recipient.email))
    channels.push(['SMS', recipient.phone]);
  return channels;
}

/** Queues a message of `kind` to a recipient on each of its channels. */
export async function queueRecipientMessage<K extends 'REMINDER' | 'EXPIRATION_WARNING'>(
  tx: Tx,
  ctx: Pick<Ctx, 'settings'>,
  request: Pick<RequestRow, 'id' | 'language'> & { organization: { id: string } },
  recipient: Pick<PendingRecipient, 'id' | 'email' | 'phone' | 'send_method' | 'language'>,
  kind: K,
  params: TemplateParams[K],
): Promise<ReminderMessage[]> {
  const messages: ReminderMessage[] = [];
  for (const [channel, address] of channelsOf(recipient)) {
    const notificationId = await queueNotification<NotificationKind>(tx, ctx.settings.secret, {
      organizationId: request.organization.id,
      requestId: request.id,
      to: { recipientId: recipient.id },
      channel,
      address,
      language: recipient.language ?? request.language,
      kind,
      params: params as never,
      secrets: {} as never,
    });
    messages.push({ notificationId, channel, address });
  }
  return messages;
}

export type ReminderPlan = {
  kind: ReminderKind;
  /** Unique per request: an occurrence already recorded is not sent again. */
  occurrence: string;
  message: string | null;
  /** Whether recipients active in the portal lately are deferred (periodic and scheduled reminders). */
  defer: boolean;
  /** Only these recipients (a deferred reminder's). */
  only?: string[];
  /** Leave out recipients reminded since then (a deferred reminder whose recipient got another meanwhile). */
  unlessRemindedSince?: Date;
  sentBy?: string | null;
};

export type SentReminder = { id: string; sentAt: Date; recipients: ReminderRecipient[] };

/**
 * Reminds the request's recipients who have not submitted, in the caller's transaction: one
 * `reminder` row (none if its occurrence was already sent or nobody is left to remind), the messages,
 * `request.reminder_sent` (the activity log's entry) when any went out, and a DEFERRED_REMINDER job a
 * day later for those deferred.
 */
export async function sendReminder(
  tx: Tx,
  ctx: Ctx,
  request: RequestRow,
  plan: ReminderPlan,
): Promise<SentReminder | null> {
  const now = ctx.settings.clock.now();
  // Timed reminders that come due together (the next periodic one and a deferred one) remind once.
  const since = Math.min(
    plan.unlessRemindedSince?.getTime() ?? Infinity,
    plan.kind === 'MANUAL' ? Infinity : now.getTime() - REMINDER_MIN_GAP_MS,
  );
  const pending = (await pendingRecipients(tx, request, now, plan.only)).filter(
    (r) => !r.reminded_at || new Date(r.reminded_at).getTime() <= since,
  );
  if (pending.length === 0) return null;
  const id = randomUUID();
  const [claimed] = await tx.rows<{ id: string }>(
    `insert into reminder (id, organization_id, request_id, kind, occurrence, message, recipients, sent_by_id, sent_at)
     values (?, ?, ?, ?, ?, ?, '[]', ?, ?) on conflict (request_id, occurrence) do nothing returning id`,
    [id, request.organization.id, request.id, plan.kind, plan.occurrence, plan.message, plan.sentBy ?? null, now],
  );
  if (!claimed) return null;
  const deferredUntil = new Date(now.getTime() + REMINDER_DEFER_MS);
  const recipients: ReminderRecipient[] = [];
  for (const recipient of pending) {
    if (plan.defer && recipient.active) {
      recipients.push({
        recipientId: recipient.id,
        status: 'DEFERRED',
        messages: [],
        deferredUntil: deferredUntil.toISOString(),
      });
      continue;
    }
    const messages = await queueRecipientMessage(tx, ctx, request, recipient, 'REMINDER', {
      requestName: request.name,
      senderName: recipient.sender_name,
      recipientFirstName: recipient.first_name,
      message: plan.message,
      dueDate: request.dueDate?.toISOString() ?? null,
    });
    recipients.push({ recipientId: recipient.id, status: 'SENT', messages });
  }
  await tx.execute('update reminder set recipients = ?::jsonb where id = ?', [JSON.stringify(recipients), id]);
  const deferred = recipients.filter((r) => r.status === 'DEFERRED').map((r) => r.recipientId);
  if (deferred.length) {
    const planned = await tx.rows<PlannedRow>(
      `insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
       values (gen_random_uuid(), ?, ?, 'DEFERRED_REMINDER', ?, ?, ?::jsonb, 'PENDING', 0, ?, ?)
       returning ${PLANNED}`,
      [
        request.organization.id,
        request.id,
        `deferred:${id}`,
        deferredUntil,
        JSON.stringify({
          recipientIds: deferred,
          kind: plan.kind,
          message: plan.message,
          reminderId: id,
          deferredAt: now.toISOString(),
        }),
        now,
        now,
      ],
    );
    await queuePlanned(tx, planned);
    await recordActivity(tx, {
      organizationId: request.organization.id,
      requestId: request.id,
      action: 'reminder.deferred',
      actor: ctx.viewer.actor,
      details: { reminder_id: id, recipient_ids: deferred, deferred_until: deferredUntil.toISOString() },
    });
  }
  const sent = recipients.filter((r) => r.status === 'SENT').map((r) => r.recipientId);
  if (sent.length) {
    await emitRequestEvent(tx, ctx, 'request.reminder_sent', request, {
      details: { reminder_id: id, kind: plan.kind, recipient_ids: sent },
    });
  }
  return { id, sentAt: now, recipients };
}

/**
 * A reminder's message that bounced goes again on the recipient's other channel, when it has an address there and the
 * reminder sent it nothing on that channel yet: a mail refused for good by its server goes by SMS, an SMS its vendor
 * refused or reported undelivered goes by mail. The copy is added to the reminder's messages (`fallbackFor`) and to the
 * activity log (`reminder.sms_fallback`, `reminder.email_fallback`), in the transaction that records the bounce.
 */
export const fallBackToOtherChannel: BounceHandler = async (tx, message, error) => {
  if (message.kind !== 'REMINDER' || !message.recipient_id || !message.request_id) return;
  const channel = message.channel === 'EMAIL' ? 'SMS' : 'EMAIL';
  const [target] = await tx.rows<{ address: string | null; reminder_id: string | null; has_other: boolean }>(
    `select case when ? = 'SMS' then rc.phone else rc.email end as address, rm.id as reminder_id,
            exists (select 1 from jsonb_array_elements(rm.recipients) e, jsonb_array_elements(e -> 'messages') m
                     where e ->> 'recipientId' = rc.id::text and m ->> 'channel' = ?) as has_other
       from recipient rc
       left join reminder rm on rm.request_id = rc.request_id and rm.recipients @> ?::jsonb
      where rc.id = ?`,
    [channel, channel, JSON.stringify([{ messages: [{ notificationId: message.id }] }]), message.recipient_id],
  );
  if (!target?.address || !target.reminder_id || target.has_other) return;
  const id = await queueCopy(tx, message.id, channel, target.address);
  const copy: ReminderMessage = { notificationId: id, channel, address: target.address, fallbackFor: message.id };
  await tx.execute(
    `update reminder set recipients = (
       select jsonb_agg(case when e ->> 'recipientId' = ? then jsonb_set(e, '{messages}', (e -> 'messages') || ?::jsonb) else e end order by n)
         from jsonb_array_elements(recipients) with ordinality as x (e, n))
      where id = ?`,
    [message.recipient_id, JSON.stringify([copy]), target.reminder_id],
  );
  await recordActivity(tx, {
    organizationId: message.organization_id,
    requestId: message.request_id,
    action: channel === 'SMS' ? 'reminder.sms_fallback' : 'reminder.email_fallback',
    actor: { type: 'SYSTEM', id: null },
    details: {
      reminder_id: target.reminder_id,
      recipient_id: message.recipient_id,
      bounced_notification_id: message.id,
      notification_id: id,
      error,
    },
  });
};
