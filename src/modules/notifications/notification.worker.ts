import type { Clock } from '../../kernel/clock';
import type { Db, Tx } from '../../kernel/db/db';
import type { TaskHandler } from '../../kernel/jobs/queue';
import { brandingColumn, brandingView, type BrandingSource } from '../organizations/organization.service';
import { linkToken, requestLink } from '../recipients/recipient-link';
import type { NotificationChannel, NotificationKind, NotificationStatus } from './notification.entities';
import {
  MAX_BODY_LENGTH,
  MAX_NOTIFICATION_ERROR,
  MAX_SMS_LENGTH,
  NOTIFICATION_CONCURRENCY,
  NOTIFICATION_MAX_ATTEMPTS,
  NOTIFICATION_RETRY_DELAYS_MS,
} from './notification.limits';
import { HandoverRefused, type Handover, type Mailer, type SmsProvider } from './notification.channels';
import { queueSend, SEND_TASK, unsealSecrets } from './notification.service';
import { extensionPoint } from '../../kernel/module';
import {
  KINDS_KEPT_WHOLE,
  KINDS_WITH_LINK,
  maskSecrets,
  renderNotification,
  type RenderedMessage,
} from './notification.templates';

// The `notification.send` task: renders and sends queued messages, and records how that went.

export type NotificationTaskDeps = {
  db: Db;
  mailer: Mailer;
  sms: SmsProvider;
  /** The server secret: recipient links derive from it, one-time codes are sealed with it. */
  serverSecret: string;
  publicUrl: string;
  clock: Clock;
};

/** A pending message, as the task reads it (jsonb parsed). */
export type OutgoingMessage = {
  id: string;
  organization_id: string;
  request_id: string | null;
  attempts: number;
  channel: NotificationChannel;
  kind: NotificationKind;
  address: string;
  language: string;
  params: Record<string, unknown>;
  secrets_sealed: string | null;
  recipient_id: string | null;
  link_nonce: string | null;
  branding: BrandingSource | null;
};

type Stored = { subject: string | null; text: string; html: string | null };
/**
 * `bounced`: the carrier refused the address for good (a mail server's 5xx, an SMS vendor's refusal): no retry will
 * help. `retryAfterMs`: the carrier asked for a pause before the next attempt. `providerMessageId`: the carrier's id.
 */
type Outcome = {
  status: NotificationStatus;
  error: string | null;
  stored: Stored | null;
  bounced?: boolean;
  retryAfterMs?: number | null;
  providerMessageId?: string | null;
};

/** A message that did not reach its addressee, as bounce handlers read it. */
export type SettledMessage = Pick<
  OutgoingMessage,
  'id' | 'organization_id' | 'request_id' | 'recipient_id' | 'channel' | 'kind' | 'address'
>;

/**
 * What a module does when a message bounces (a mail refused for good, an SMS refused or reported undelivered), in the
 * transaction that records it (reminders fall back to the other channel): the message and the carrier's answer.
 */
export type BounceHandler = (tx: Tx, message: SettledMessage, error: string) => Promise<void>;

/** Handlers of bounced messages (a module above notifications contributes one). */
export const bounceHandlers = extensionPoint<BounceHandler>('bounced messages');

/** A refusal for good: an SMTP 5xx (a 4xx asks to try later), or a carrier's refusal that says so. */
const isPermanentRefusal = (err: unknown) => {
  if (err instanceof HandoverRefused) return err.permanent;
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/**
 * Marks a message that was handed over but did not arrive (an SMS its vendor reports undelivered) FAILED with the
 * carrier's word, and runs the bounce handlers, in the caller's transaction.
 */
export async function recordUndelivered(tx: Tx, message: SettledMessage, error: string): Promise<void> {
  await tx.execute(`update notification set status = 'FAILED', last_error = ? where id = ?`, [
    error.slice(0, MAX_NOTIFICATION_ERROR),
    message.id,
  ]);
  for (const handle of bounceHandlers.values()) await handle(tx, message, error);
}

/** What a vendor reports of a message that did not arrive (notification.twilio.ts records it). */
export const UNDELIVERED_STATUSES = new Set(['undelivered', 'failed']);

/**
 * The task of queued messages: one (`notificationId`, a message queued alone or tried again) or several
 * (`notificationIds`, an event's invitations). The recipient's link is derived here, at send time, so it is never
 * stored anywhere but in the body of the message that carries it. A failure that may pass adds the next attempt's job
 * itself, on NOTIFICATION_RETRY_DELAYS_MS. A job run again after a crash finds an attempt recorded (nothing more
 * happens) or not (it sends again: at least once).
 */
export function notificationTasks(deps: NotificationTaskDeps): Record<string, TaskHandler> {
  const sender = new Sender(deps);
  return {
    [SEND_TASK]: ({ notificationId, notificationIds }: { notificationId?: string; notificationIds?: string[] }) =>
      sender.send(notificationIds ?? [notificationId!]),
  };
}

type Attempt = { row: OutgoingMessage; outcome: Outcome };

class Sender {
  constructor(private readonly options: NotificationTaskDeps) {}

  async send(ids: readonly string[]): Promise<void> {
    const rows = await this.options.db.rows<OutgoingMessage>(
      `select n.id, n.organization_id, n.request_id, n.attempts, n.channel, n.kind, n.address, n.language, n.params, n.secrets_sealed, n.recipient_id,
              (select link_nonce from recipient where id = n.recipient_id) as link_nonce, ${brandingColumn('n.organization_id')} as branding
         from notification n where n.id = any(?::uuid[]) and n.status = 'PENDING'`,
      [ids],
      { prepared: true },
    );
    // Those settled since their job was added (sent before a crash), or deleted with their request, are not there.
    const byId = new Map(rows.map((row) => [row.id, row]));
    const pending = ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
    const attempts: Attempt[] = [];
    for (let at = 0; at < pending.length; at += NOTIFICATION_CONCURRENCY)
      attempts.push(
        ...(await Promise.all(
          pending
            .slice(at, at + NOTIFICATION_CONCURRENCY)
            .map(async (row) => ({ row, outcome: await this.attempt(row) })),
        )),
      );
    if (attempts.length > 0) await this.record(attempts);
  }

  private render(row: OutgoingMessage): { sent: RenderedMessage; stored: RenderedMessage } {
    let link: string | null = null;
    if (KINDS_WITH_LINK.has(row.kind)) {
      if (!row.recipient_id || !row.link_nonce) throw new Error('The recipient no longer exists');
      link = requestLink(
        this.options.publicUrl,
        linkToken(this.options.serverSecret, row.recipient_id, row.link_nonce),
      );
    }
    const secrets = row.secrets_sealed ? unsealSecrets(this.options.serverSecret, row.secrets_sealed) : {};
    const values = {
      params: row.params as never,
      link,
      branding: row.branding && brandingView(this.options.publicUrl, row.branding),
    };
    if (!row.secrets_sealed) {
      // Nothing to mask: what is kept is what is sent.
      const message = renderNotification(row.kind, row.language, { ...values, secrets: {} as never });
      return { sent: message, stored: message };
    }
    return {
      sent: renderNotification(row.kind, row.language, { ...values, secrets: secrets as never }),
      stored: renderNotification(row.kind, row.language, { ...values, secrets: maskSecrets(secrets) as never }),
    };
  }

  private async attempt(row: OutgoingMessage): Promise<Outcome> {
    let message: { sent: RenderedMessage; stored: RenderedMessage };
    const fromName = row.branding?.senderName ?? undefined;
    try {
      message = this.render(row);
    } catch (err) {
      return { status: 'FAILED', error: `Cannot build the message: ${(err as Error).message}`, stored: null };
    }
    const { sent } = message;
    const email = row.channel === 'EMAIL';
    const keep = (stored: RenderedMessage): Stored =>
      email
        ? { subject: stored.subject, text: stored.text, html: stored.html }
        : { subject: null, text: stored.sms, html: null };
    const kept = keep(message.stored);
    const tooLarge = email
      ? Math.max(sent.text.length, sent.html.length) > MAX_BODY_LENGTH
      : sent.sms.length > MAX_SMS_LENGTH;
    if (tooLarge)
      return {
        status: 'FAILED',
        error: `The message is longer than ${email ? MAX_BODY_LENGTH : MAX_SMS_LENGTH} characters`,
        stored: kept,
      };
    try {
      const handover: Handover = email
        ? await this.options.mailer.send({
            to: row.address,
            subject: sent.subject,
            text: sent.text,
            html: sent.html,
            fromName,
          })
        : await this.options.sms.send({ id: row.id, to: row.address, text: sent.sms });
      // Kept, not sent: the table is all that carries it (KINDS_KEPT_WHOLE).
      const whole = handover.status === 'KEPT' && KINDS_KEPT_WHOLE.has(row.kind);
      return {
        status: handover.status,
        error: null,
        stored: whole ? keep(sent) : kept,
        providerMessageId: handover.providerMessageId,
      };
    } catch (err) {
      const attempts = row.attempts + 1;
      const error = ((err as Error).message || String(err)).slice(0, MAX_NOTIFICATION_ERROR);
      if (isPermanentRefusal(err)) return { status: 'FAILED', error, stored: kept, bounced: true };
      return {
        status: attempts >= NOTIFICATION_MAX_ATTEMPTS ? 'FAILED' : 'PENDING',
        error,
        stored: kept,
        retryAfterMs: err instanceof HandoverRefused ? err.retryAfterMs : null,
      };
    }
  }

  /**
   * Records the attempts, in one statement and one transaction with what follows them: each next attempt's job (no
   * sooner than the carrier asked), or what the bounce handlers do. It records only an attempt the message still waits
   * for: a run of the job that another run overtook records nothing. A settled message drops its sealed secrets. A
   * vendor's report that the message did not arrive, come before this record, bounces it now.
   */
  private async record(attempts: readonly Attempt[]): Promise<void> {
    const now = this.options.clock.now();
    const retryAt = ({ row, outcome }: Attempt) =>
      outcome.status === 'PENDING'
        ? new Date(now.getTime() + Math.max(NOTIFICATION_RETRY_DELAYS_MS[row.attempts], outcome.retryAfterMs ?? 0))
        : null;
    const column = <T>(value: (attempt: Attempt) => T) => attempts.map(value);
    await this.options.db.transaction(async (tx) => {
      const recorded = await tx.rows<{ id: string; delivery_status: string | null }>(
        `update notification n
            set status = a.status, attempts = n.attempts + 1, next_attempt_at = a.retry_at, last_error = a.error,
                subject = coalesce(a.subject, n.subject), text = coalesce(a.text, n.text), html = coalesce(a.html, n.html),
                sent_at = case when a.status = 'SENT' then ?::timestamptz end,
                secrets_sealed = case when a.status <> 'PENDING' then null else n.secrets_sealed end, updated_at = ?,
                provider_message_id = coalesce(a.provider_message_id, n.provider_message_id)
           from unnest(?::uuid[], ?::int[], ?::text[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
                  as a (id, attempts, status, retry_at, error, subject, text, html, provider_message_id)
          where n.id = a.id and n.status = 'PENDING' and n.attempts = a.attempts
          returning n.id, n.delivery_status`,
        [
          now,
          now,
          column(({ row }) => row.id),
          column(({ row }) => row.attempts),
          column(({ outcome }) => outcome.status),
          column(retryAt),
          column(({ outcome }) => outcome.error),
          column(({ outcome }) => outcome.stored?.subject ?? null),
          column(({ outcome }) => outcome.stored?.text ?? null),
          column(({ outcome }) => outcome.stored?.html ?? null),
          column(({ outcome }) => outcome.providerMessageId ?? null),
        ],
        { prepared: true },
      );
      const byId = new Map(attempts.map((attempt) => [attempt.row.id, attempt]));
      for (const { id, delivery_status } of recorded) {
        const attempt = byId.get(id)!;
        const { row, outcome } = attempt;
        const at = retryAt(attempt);
        if (at) await queueSend(tx, row.id, at);
        if (outcome.bounced) for (const handle of bounceHandlers.values()) await handle(tx, row, outcome.error!);
        else if (outcome.status === 'SENT' && UNDELIVERED_STATUSES.has(delivery_status ?? ''))
          await recordUndelivered(tx, row, `Reported ${delivery_status} by the SMS provider`);
      }
    });
  }
}
