import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = { envelopeTo: string[]; mail: ParsedMail };

/**
 * A real SMTP server on loopback (plain, no authentication) that parses every message it accepts.
 * `refuse` decides, per message, whether to answer its data with a temporary failure; `bounce`, per
 * address, whether to refuse it for good (550 to RCPT TO, as for a mailbox that does not exist).
 */
export async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  let refuse: (to: string[]) => boolean = () => false;
  let bounce: (address: string) => boolean = () => false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (bounce(address.address))
        return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((address) => address.address);
      simpleParser(stream).then(
        (mail) => {
          if (refuse(to)) {
            const error = Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 });
            callback(error);
            return;
          }
          received.push({ envelopeTo: to, mail });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseWhen(decide: (to: string[]) => boolean) {
      refuse = decide;
    },
    bounceWhen(decide: (address: string) => boolean) {
      bounce = decide;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
