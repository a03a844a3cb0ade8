import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

// The mail server of the reminder scenario, in a process of its own (its CPU is neither side's): it
// accepts every message, reads and discards it, and counts.
//   hello {port}; reset -> reset; wait {count, timeoutMs} -> done {count, first_ms, last_ms} (epoch ms)

let count = 0;
let first = 0;
let last = 0;
let waiting: { count: number; timer: NodeJS.Timeout } | null = null;

const report = () => process.send?.({ type: 'done', count, first_ms: first, last_ms: last });

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  maxClients: 1000,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      const now = Date.now();
      if (count === 0) first = now;
      count++;
      last = now;
      callback();
      if (waiting && count >= waiting.count) {
        clearTimeout(waiting.timer);
        waiting = null;
        report();
      }
    });
  },
});

process.on('message', (message: { type?: string; count?: number; timeoutMs?: number }) => {
  if (message?.type === 'reset') {
    count = first = last = 0;
    process.send?.({ type: 'reset' });
  } else if (message?.type === 'wait') {
    if (count >= message.count!) return report();
    waiting = { count: message.count!, timer: setTimeout(report, message.timeoutMs) };
  }
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () =>
  process.send?.({ type: 'hello', port: (server.server.address() as AddressInfo).port }),
);
