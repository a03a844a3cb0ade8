import WebSocket from 'ws';

// A load process of the fan-out scenario (lib/fanout.ts): holds up to a few thousand subscribers, each
// a raw `ws` socket speaking graphql-transport-ws (connection_init with the key, connection_ack,
// subscribe), and reports, per expected event, when its first and its last subscriber received it,
// as process.hrtime (CLOCK_MONOTONIC, the same clock in every process of the machine, so the runner
// can subtract the time it caused the event).
//
// Why not the graphql-ws client library: it is what the tests use, and the runner checks with it that
// these sockets receive exactly what it receives (lib/fanout.ts), but its per-client machinery (a
// Client with retry and lazy-connection logic, a sink per subscription, message validation) costs CPU
// on the same 2 cores as the server under test, during the very fan-out that is measured; the raw
// client parses each message once and compares one field.
//
// Messages from the runner (IPC): connect {url, count, window, connectionParams, query, localAddress}
// -> connected {ok, failed, errors}; expect {seq, name} -> expecting, then received {seq, count, first,
// last, sample?}; close -> closed. The process exits when the runner's IPC channel closes.

type Subscriber = { socket: WebSocket; seq: number; ready: boolean };

const subscribers: Subscriber[] = [];
let expected: { seq: number; name: string; received: number; first: bigint; sample: boolean } | undefined;
let dropped = 0;

const send = (message: object) => process.send?.(message);

function onMessage(subscriber: Subscriber, data: WebSocket.RawData): void {
  const current = expected;
  if (!current) return;
  const text = data.toString();
  let message: { type?: string; payload?: { data?: { requestUpdated?: { name?: string } } } };
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  if (
    message.type !== 'next' ||
    message.payload?.data?.requestUpdated?.name !== current.name ||
    subscriber.seq === current.seq
  )
    return;
  const now = process.hrtime.bigint();
  subscriber.seq = current.seq;
  if (current.received++ === 0) current.first = now;
  if (current.received === subscribers.length) {
    expected = undefined;
    send({
      type: 'received',
      seq: current.seq,
      count: current.received,
      first: String(current.first),
      last: String(now),
      ...(current.sample ? { sample: text } : {}),
    });
  }
}

function open(
  url: string,
  connectionParams: unknown,
  query: string,
  localAddress: string | undefined,
): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', {
      perMessageDeflate: false,
      localAddress,
      handshakeTimeout: 60_000,
    });
    const subscriber: Subscriber = { socket, seq: -1, ready: false };
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
    socket.on('message', (data) => {
      if (subscriber.ready) return onMessage(subscriber, data);
      const message = JSON.parse(data.toString()) as { type?: string };
      if (message.type !== 'connection_ack')
        return reject(new Error(`expected connection_ack, got ${data.toString().slice(0, 200)}`));
      subscriber.ready = true;
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      resolve(subscriber);
    });
    socket.on('error', (err) => {
      if (!subscriber.ready) reject(err);
    });
    socket.on('close', (code, reason) => {
      if (!subscriber.ready) reject(new Error(`closed before connection_ack: ${code} ${reason.toString()}`));
      else if (!closing) dropped++;
    });
  });
}

let closing = false;

process.on('message', async (message: Record<string, any>) => {
  switch (message.type) {
    case 'connect': {
      const { url, count, window, connectionParams, query, localAddress } = message as {
        url: string;
        count: number;
        window: number;
        connectionParams: unknown;
        query: string;
        localAddress?: string;
      };
      let started = 0;
      let failed = 0;
      const errors: string[] = [];
      // A sliding window of connections in progress, so the server is never handed thousands at once.
      const lane = async () => {
        while (started < count) {
          started++;
          try {
            subscribers.push(await open(url, connectionParams, query, localAddress));
          } catch (err) {
            failed++;
            if (errors.length < 5) errors.push(err instanceof Error ? err.message : String(err));
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(window, count) }, lane));
      send({ type: 'connected', ok: subscribers.length, failed, errors });
      return;
    }
    case 'expect':
      expected = { seq: message.seq, name: message.name, received: 0, first: 0n, sample: Boolean(message.sample) };
      send({ type: 'expecting', seq: message.seq, dropped });
      return;
    case 'status':
      send({ type: 'status', pending: expected ? subscribers.length - expected.received : 0, dropped });
      return;
    case 'close': {
      closing = true;
      expected = undefined;
      await Promise.all(
        subscribers.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.socket.readyState === WebSocket.CLOSED) return resolve();
              s.socket.once('close', () => resolve());
              s.socket.close(1000);
              setTimeout(() => {
                s.socket.terminate();
                resolve();
              }, 10_000).unref();
            }),
        ),
      );
      subscribers.length = 0;
      send({ type: 'closed' });
      return;
    }
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'hello' });
