import { MAX_PENDING_BYTES } from '../../src/kernel/limits';
import { nextMessage, Subscriber } from '../../src/kernel/graphql/subscriptions';

// A socket whose peer stopped reading keeps every message unwritten, which a loopback socket cannot
// be made to do quickly (the kernel buffers megabytes); this one holds each back, counting its bytes
// as ws's `bufferedAmount` does, until drained.
function stalledSocket() {
  const messages: Array<{ text: string; binary: boolean }> = [];
  const socket = {
    bufferedAmount: 0,
    send(data: Buffer, options: { binary: false }) {
      messages.push({ text: data.toString(), binary: options.binary });
      socket.bufferedAmount += data.length;
    },
  };
  return { socket, messages, drain: () => void (socket.bufferedAmount = 0) };
}

describe('Subscriber', () => {
  it('should send graphql-ws next messages around the shared payload, as text', () => {
    const { socket, messages } = stalledSocket();
    const subscriber = new Subscriber(socket, 'sub-1', () => undefined);
    subscriber.deliver(nextMessage(subscriber.id, JSON.stringify({ data: { requestCreated: { id: 'r1' } } })));
    expect(messages.map((m) => m.binary)).toEqual([false]);
    expect(messages.map((m) => JSON.parse(m.text))).toEqual([
      { id: 'sub-1', type: 'next', payload: { data: { requestCreated: { id: 'r1' } } } },
    ]);
  });

  it(`should cut off a subscriber with ${MAX_PENDING_BYTES} bytes unwritten, ending with RATE_LIMITED`, async () => {
    const { socket, messages, drain } = stalledSocket();
    let closed = 0;
    const subscriber = new Subscriber(socket, 'slow', () => closed++);
    const next = subscriber.next();
    // Messages of 1 KiB exactly: the limit holds a whole number of them.
    const message = nextMessage(
      'slow',
      JSON.stringify({ data: { x: 'x'.repeat(1024 - nextMessage('slow', '{"data":{"x":""}}').length) } }),
    );
    expect(message.length).toBe(1024);
    const fit = MAX_PENDING_BYTES / 1024;
    for (let i = 0; i < fit; i++) subscriber.deliver(message);
    expect(closed).toBe(0);
    drain();
    for (let i = 0; i < fit; i++) subscriber.deliver(message);
    expect(closed).toBe(0);
    subscriber.deliver(message);
    expect(closed).toBe(1);
    expect(messages).toHaveLength(2 * fit);
    const last = await next;
    // A GraphQLError (graphql-ws serialises it) whose cause is the coded error (formatted as over HTTP).
    expect(last).toMatchObject({ done: false, value: { errors: [{ originalError: { code: 'RATE_LIMITED' } }] } });
    expect(await subscriber.next()).toEqual({ value: undefined, done: true });
    drain();
    subscriber.deliver(message);
    expect(messages).toHaveLength(2 * fit);
  });

  it('should end quietly when the client completes the subscription', async () => {
    let closed = 0;
    const subscriber = new Subscriber(stalledSocket().socket, 'done', () => closed++);
    const next = subscriber.next();
    await subscriber.return();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(closed).toBe(1);
  });
});
