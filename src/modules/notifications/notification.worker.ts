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

// The `notification.send` task: renders and sends one queued message, and records how that went.

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
 * The task of a queued message. The recipient's link is derived here, at send time, so it is never stored anywhere
 * but in the body of the message that carries it. A failure that may pass adds the next attempt's job itself, on
 * NOTIFICATION_RETRY_DELAYS_MS. A job run again after a crash finds its attempt recorded (nothing more happens) or not
 * (it sends again: at least once).
 */
export function notificationTasks(deps: NotificationTaskDeps): Record<string, TaskHandler> {
  const sender = new Sender(deps);
  return { [SEND_TASK]: ({ notificationId }: { notificationId: string }) => sender.send(notificationId) };
}

class Sender {
  constructor(private readonly options: NotificationTaskDeps) {}

  async send(notificationId: string): Promise<void> {
    const [row] = await this.options.db.rows<OutgoingMessage>(
      `select n.id, n.organization_id, n.request_id, n.attempts, n.channel, n.kind, n.address, n.language, n.params, n.secrets_sealed, n.recipient_id,
              (select link_nonce from recipient where id = n.recipient_id) as link_nonce, ${brandingColumn('n.organization_id')} as branding
         from notification n where n.id = ? and n.status = 'PENDING'`,
      [notificationId],
      { prepared: true },
    );
    // Settled since its job was added (sent before a crash), or deleted with its request.
    if (!row) return;
    await this.record(row, await this.attempt(row));
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
   * Records the attempt, in one transaction with what follows it: the next attempt's job (no sooner than the carrier
   * asked), or what the bounce handlers do. It records only the attempt the message still waits for: a run of the
   * job that another run overtook records nothing. A settled message drops its sealed secrets. A vendor's report that
   * the message did not arrive, come before this record, bounces it now.
   */
  private async record(row: OutgoingMessage, outcome: Outcome): Promise<void> {
    const now = this.options.clock.now();
    const retryAt =
      outcome.status === 'PENDING'
        ? new Date(now.getTime() + Math.max(NOTIFICATION_RETRY_DELAYS_MS[row.attempts], outcome.retryAfterMs ?? 0))
        : null;
    await this.options.db.transaction(async (tx) => {
      const [recorded] = await tx.rows<{ delivery_status: string | null }>(
        `update notification
            set status = ?, attempts = ?, next_attempt_at = ?, last_error = ?,
                subject = coalesce(?, subject), text = coalesce(?, text), html = coalesce(?, html), sent_at = ?,
                secrets_sealed = case when ? <> 'PENDING' then null else secrets_sealed end, updated_at = ?,
                provider_message_id = coalesce(?, provider_message_id)
          where id = ? and status = 'PENDING' and attempts = ?
          returning delivery_status`,
        [
          outcome.status,
          row.attempts + 1,
          retryAt,
          outcome.error,
          outcome.stored?.subject ?? null,
          outcome.stored?.text ?? null,
          outcome.stored?.html ?? null,
          outcome.status === 'SENT' ? now : null,
          outcome.status,
          now,
          outcome.providerMessageId ?? null,
          row.id,
          row.attempts,
        ],
        { prepared: true },
      );
      if (!recorded) return;
      if (retryAt) await queueSend(tx, row.id, retryAt);
      if (outcome.bounced) for (const handle of bounceHandlers.values()) await handle(tx, row, outcome.error!);
      else if (outcome.status === 'SENT' && UNDELIVERED_STATUSES.has(recorded.delivery_status ?? ''))
        await recordUndelivered(tx, row, `Reported ${recorded.delivery_status} by the SMS provider`);
    });
  }
}
