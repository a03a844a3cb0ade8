import type { FastifyBaseLogger } from 'fastify';
import { createTransport, type Transporter } from 'nodemailer';
import type { MailSettings } from '../../config/config';
import { NOTIFICATION_CONCURRENCY, NOTIFICATION_SEND_TIMEOUT_MS } from './notification.limits';

/**
 * What became of one message handed to a channel: SENT (the carrier took it) or KEPT (nothing carries it), with the
 * carrier's id of the message when it gives one (an SMS vendor's, to match its delivery reports).
 */
export type Handover = { status: 'SENT' | 'KEPT'; providerMessageId?: string | null };

/**
 * A carrier's refusal of a message: `permanent` when no retry will help (the address is refused: it falls back to the
 * recipient's other channel), else a failed attempt retried no sooner than `retryAfterMs` when the carrier says so.
 */
export class HandoverRefused extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | null;
  constructor(message: string, options: { permanent: boolean; retryAfterMs?: number | null }) {
    super(message);
    this.permanent = options.permanent;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** Sends mail; a throw is a failed attempt (retried). */
export type Mailer = {
  /** `fromName`, the organization's sender name, replaces the display name of MAIL_FROM (its address stays). */
  send(message: { to: string; subject: string; text: string; html: string; fromName?: string }): Promise<Handover>;
  close(): void;
};

/**
 * Sends SMS: through Twilio when it is configured (notification.twilio.ts), else to the log (the message stays in the
 * table, KEPT); tests may pass another to the app (its `sms` option). `id` is the notification's (a vendor reports
 * delivery about it). A throw is a failed attempt; a `HandoverRefused` says whether to retry.
 */
export type SmsProvider = { send(message: { id: string; to: string; text: string }): Promise<Handover> };

export function logSmsProvider(log: FastifyBaseLogger): SmsProvider {
  return {
    async send({ to }) {
      // The text holds the recipient's link, which the log must not spread: the table keeps it.
      log.info({ to }, 'SMS kept in the notification table (no SMS provider is configured)');
      return { status: 'KEPT' };
    },
  };
}

/** Mail through SMTP_URL, or, without it, kept in the table for a developer to read. */
export function createMailer(settings: MailSettings): Mailer {
  if (!settings.smtpUrl) return { send: async () => ({ status: 'KEPT' }), close: () => {} };
  const url = new URL(settings.smtpUrl);
  const transport: Transporter = createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    pool: true,
    maxConnections: NOTIFICATION_CONCURRENCY,
    connectionTimeout: NOTIFICATION_SEND_TIMEOUT_MS,
    greetingTimeout: NOTIFICATION_SEND_TIMEOUT_MS,
    socketTimeout: NOTIFICATION_SEND_TIMEOUT_MS,
  });
  return {
    async send({ fromName, ...message }) {
      const address = /<([^>]+)>\s*$/.exec(settings.from)?.[1] ?? settings.from;
      await transport.sendMail({ from: fromName ? { name: fromName, address } : settings.from, ...message });
      return { status: 'SENT' };
    },
    close: () => transport.close(),
  };
}
