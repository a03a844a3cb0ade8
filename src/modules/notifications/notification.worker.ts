import type { Clock } from '../../kernel/clock';
import type { Db, Tx } from '../../kernel/db/db';
import { PollingWorker } from '../../kernel/jobs/polling-worker';
import type { FastifyBaseLogger } from 'fastify';
import { brandingColumn, brandingView, type BrandingSource } from '../organizations/organization.service';
import { linkToken, requestLink } from '../recipients/recipient-link';
import type { NotificationChannel, NotificationKind, NotificationStatus } from './notification.entities';
import {
  MAX_BODY_LENGTH,
  MAX_NOTIFICATION_ERROR,
  MAX_SMS_LENGTH,
  NOTIFICATION_BATCH,
  NOTIFICATION_CONCURRENCY,
  NOTIFICATION_MAX_ATTEMPTS,
  NOTIFICATION_RETRY_DELAYS_MS,
  NOTIFICATION_SEND_TIMEOUT_MS,
} from './notification.limits';
import type { Handover, Mailer, SmsProvider } from './notification.channels';
import { unsealSecrets } from './notification.service';
import { extensionPoint } from '../../kernel/module';
import { KINDS_WITH_LINK, maskSecrets, renderNotification, type RenderedMessage } from './notification.templates';

export type NotificationWorkerOptions = {
  db: Db;
  mailer: Mailer;
  sms: SmsProvider;
  /** The server secret: recipient links derive from it, one-time codes are sealed with it. */
  serverSecret: string;
  publicUrl: string;
  log: FastifyBaseLogger;
  clock?: Clock;
  /** How often due retries are looked for, besides waking after every commit. */
  pollMs?: number;
};

/** A claimed message, as the claim's statement answers it (jsonb parsed). */
export type Claimed = {
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
/** `bounced`: the mail server refused the address for good (a 5xx answer): no retry will help. */
type Outcome = { status: NotificationStatus; error: string | null; stored: Stored | null; bounced?: boolean };

/**
 * What a module does when a mail bounces, in the transaction that records the bounce (reminders fall
 * back to SMS): the message as claimed and the server's answer.
 */
export type BounceHandler = (tx: Tx, message: Claimed, error: string) => Promise<void>;

/** Handlers of bounced mail (a module above notifications contributes one). */
export const bounceHandlers = extensionPoint<BounceHandler>('bounced mail');

/** An SMTP answer that refuses for good: 5xx (a 4xx asks to try later). */
const isPermanentRefusal = (err: unknown) => {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/** A whole batch may be sent one timeout after another; a lease lapses only when its holder is gone. */
const LEASE_MS = Math.ceil(NOTIFICATION_BATCH / NOTIFICATION_CONCURRENCY) * 3 * NOTIFICATION_SEND_TIMEOUT_MS + 60_000;

/**
 * Renders and sends queued notifications, as the webhook worker sends deliveries: due rows are claimed
 * with FOR UPDATE SKIP LOCKED under a lease (instances share the work, a dead instance's rows go out
 * when its lease lapses: at least once), each attempt is recorded in one statement, failures are
 * retried on NOTIFICATION_RETRY_DELAYS_MS. The recipient's link is derived here, at send time, so
 * it is never stored anywhere but in the body of the message that carries it.
 */
export class NotificationWorker extends PollingWorker {
  private readonly clock: Clock;

  constructor(private readonly options: NotificationWorkerOptions) {
    super(options.log, 'notification', NOTIFICATION_BATCH, options.pollMs);
    this.clock = options.clock ?? { now: () => new Date() };
  }

  /** Claims one batch of due messages and sends them; returns how many were attempted. */
  override async runOnce(): Promise<number> {
    const now = this.clock.now();
    // One statement on its own (no transaction around it), prepared: it runs after every create that invites.
    const claimed = await this.options.db.rows<Claimed>(
      `with due as (
         select id from notification
          where status = 'PENDING' and next_attempt_at <= ? and (locked_until is null or locked_until < ?)
          order by next_attempt_at
          limit ?
          for update skip locked)
       update notification n set locked_until = ?
         from due
        where n.id = due.id
       returning n.id, n.organization_id, n.request_id, n.attempts, n.channel, n.kind, n.address, n.language, n.params, n.secrets_sealed, n.recipient_id,
                 (select link_nonce from recipient where id = n.recipient_id) as link_nonce, ${brandingColumn('n.organization_id')} as branding`,
      [now, now, NOTIFICATION_BATCH, new Date(now.getTime() + LEASE_MS)],
      { prepared: true },
    );
    const queue = [...claimed];
    // A message's record does not hold back the next attempt: the attempts that end while a record is
    // on its way go in the next one, so a batch of kept or quickly handed-over messages costs one or
    // two records, not one per NOTIFICATION_CONCURRENCY messages (a statement per create's
    // invitations under the create benchmark's load). Records never fail (they log); the round ends
    // once all are written.
    const records: Promise<void>[] = [];
    const workers = Array.from({ length: Math.min(NOTIFICATION_CONCURRENCY, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) records.push(this.record(row, await this.attempt(row)));
    });
    await Promise.all(workers);
    await Promise.all(records);
    return claimed.length;
  }

  /** Attempts waiting for the statement that records them (see `record`). */
  private unrecorded: { row: Claimed; outcome: Outcome }[] = [];
  private recording?: Promise<void>;

  private render(row: Claimed): { sent: RenderedMessage; stored: RenderedMessage } {
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

  private async attempt(row: Claimed): Promise<Outcome> {
    let message: { sent: RenderedMessage; stored: RenderedMessage };
    const fromName = row.branding?.senderName ?? undefined;
    try {
      message = this.render(row);
    } catch (err) {
      return { status: 'FAILED', error: `Cannot build the message: ${(err as Error).message}`, stored: null };
    }
    const { sent, stored } = message;
    const email = row.channel === 'EMAIL';
    const kept: Stored = email
      ? { subject: stored.subject, text: stored.text, html: stored.html }
      : { subject: null, text: stored.sms, html: null };
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
        : await this.options.sms.send({ to: row.address, text: sent.sms });
      return { status: handover.status, error: null, stored: kept };
    } catch (err) {
      const attempts = row.attempts + 1;
      const error = ((err as Error).message || String(err)).slice(0, MAX_NOTIFICATION_ERROR);
      if (email && isPermanentRefusal(err)) return { status: 'FAILED', error, stored: kept, bounced: true };
      return { status: attempts >= NOTIFICATION_MAX_ATTEMPTS ? 'FAILED' : 'PENDING', error, stored: kept };
    }
  }

  /**
   * Records an attempt and its outcome. Attempts that end together (kept messages, a batch of mail
   * handed over at once) are recorded together, in one statement; a bounce in a transaction of its
   * own, with what the bounce handlers do. A settled message drops its sealed secrets.
   */
  private record(row: Claimed, outcome: Outcome): Promise<void> {
    if (outcome.bounced && bounceHandlers.values().length > 0) return this.recordBounce(row, outcome);
    this.unrecorded.push({ row, outcome });
    this.recording ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.recording = undefined;
      return this.recordAll(this.unrecorded.splice(0));
    });
    return this.recording;
  }

  private async recordAll(attempts: { row: Claimed; outcome: Outcome }[]): Promise<void> {
    const now = this.clock.now();
    const column = <T>(value: (attempt: { row: Claimed; outcome: Outcome }) => T) => attempts.map(value);
    try {
      // One statement on its own, as the claim.
      await this.options.db.rows(
        `update notification n
            set status = a.status, attempts = a.attempts, next_attempt_at = a.next_attempt_at, locked_until = null, last_error = a.last_error,
                subject = coalesce(a.subject, n.subject), text = coalesce(a.text, n.text), html = coalesce(a.html, n.html), sent_at = a.sent_at,
                secrets_sealed = case when a.status <> 'PENDING' then null else n.secrets_sealed end, updated_at = ?
           from unnest(?::uuid[], ?::text[], ?::int[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
                  as a (id, status, attempts, next_attempt_at, last_error, subject, text, html, sent_at)
          where n.id = a.id`,
        [
          now,
          column(({ row }) => row.id),
          column(({ outcome }) => outcome.status),
          column(({ row }) => row.attempts + 1),
          column(({ row, outcome }) =>
            outcome.status === 'PENDING' ? new Date(now.getTime() + NOTIFICATION_RETRY_DELAYS_MS[row.attempts]) : null,
          ),
          column(({ outcome }) => outcome.error),
          column(({ outcome }) => outcome.stored?.subject ?? null),
          column(({ outcome }) => outcome.stored?.text ?? null),
          column(({ outcome }) => outcome.stored?.html ?? null),
          column(({ outcome }) => (outcome.status === 'SENT' ? now : null)),
        ],
        { prepared: true },
      );
    } catch (err) {
      // The rows stay leased and are tried again when the lease lapses (at least once).
      this.options.log.error(
        { err, notifications: attempts.map(({ row }) => row.id) },
        'recording notification attempts failed',
      );
    }
  }

  private async recordBounce(row: Claimed, outcome: Outcome): Promise<void> {
    const now = this.clock.now();
    try {
      await this.options.db.transaction(async (tx) => {
        await tx.execute(
          `update notification set status = ?, attempts = ?, next_attempt_at = null, locked_until = null, last_error = ?,
                  subject = coalesce(?, subject), text = coalesce(?, text), html = coalesce(?, html), secrets_sealed = null, updated_at = ?
            where id = ?`,
          [
            outcome.status,
            row.attempts + 1,
            outcome.error,
            outcome.stored?.subject ?? null,
            outcome.stored?.text ?? null,
            outcome.stored?.html ?? null,
            now,
            row.id,
          ],
        );
        for (const handle of bounceHandlers.values()) await handle(tx, row, outcome.error!);
      });
    } catch (err) {
      this.options.log.error({ err, notification: row.id }, 'recording a notification attempt failed');
    }
  }

  protected override async release(): Promise<void> {
    this.options.mailer.close();
  }
}
