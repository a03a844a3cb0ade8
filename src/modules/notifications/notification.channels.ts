import type { FastifyBaseLogger } from 'fastify';
import { createTransport, type Transporter } from 'nodemailer';
import type { MailSettings } from '../../config/config';
import { NOTIFICATION_CONCURRENCY, NOTIFICATION_SEND_TIMEOUT_MS } from './notification.limits';

/** What became of one message handed to a channel: SENT (the carrier took it) or KEPT (nothing carries it). */
export type Handover = { status: 'SENT' | 'KEPT' };

/** Sends mail; a throw is a failed attempt (retried). */
export type Mailer = {
  /** `fromName`, the organization's sender name, replaces the display name of MAIL_FROM (its address stays). */
  send(message: { to: string; subject: string; text: string; html: string; fromName?: string }): Promise<Handover>;
  close(): void;
};

/**
 * Sends SMS. The only built-in provider writes to the log (and the message stays in the table, KEPT);
 * a vendor's provider implements this and is passed to the app (its `sms` option). A throw is a failed attempt.
 */
export type SmsProvider = { send(message: { to: string; text: string }): Promise<Handover> };

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
