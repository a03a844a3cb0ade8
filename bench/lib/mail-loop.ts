import { createMailer } from '../../src/modules/notifications/notification.channels';
import { NOTIFICATION_CONCURRENCY } from '../../src/modules/notifications/notification.limits';

// Baseline of the reminder scenario, in a process of its own: the service's own mail transport (the
// same pooled nodemailer set-up, NOTIFICATION_CONCURRENCY at a time) sending `count` copies of one
// rendered reminder to the same server. No database, no rendering: the ceiling of the sending.
//   run {smtpUrl, message, count} -> done {ms}

process.on(
  'message',
  async (message: {
    type?: string;
    smtpUrl: string;
    message: { to: string; subject: string; text: string; html: string };
    count: number;
  }) => {
    if (message?.type !== 'run') return;
    const mailer = createMailer({ smtpUrl: message.smtpUrl, from: 'Gather <no-reply@bench.example>' });
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: NOTIFICATION_CONCURRENCY }, async () => {
        while (next < message.count) {
          next++;
          await mailer.send(message.message);
        }
      }),
    );
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    mailer.close();
    process.send?.({ type: 'done', ms });
  },
);
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'hello' });
