import { MAX_PENDING_EVENTS } from '../../src/kernel/limits';
import { Subscriber } from '../../src/kernel/graphql/subscriptions';

// A socket whose peer stopped reading never reports a message written, which a loopback socket
// cannot be made to do quickly (the kernel buffers megabytes); this one holds every message back.
function stalledSocket() {
  const messages: string[] = [];
  const written: Array<() => void> = [];
  const send = (data: string, sent: () => void) => {
    messages.push(data);
    written.push(sent);
  };
  return { messages, send, drain: () => written.splice(0).forEach((done) => done()) };
}

describe('Subscriber', () => {
  it('should send graphql-ws next messages around the shared payload', () => {
    const socket = stalledSocket();
    const subscriber = new Subscriber(socket, 'sub-1', () => undefined);
    subscriber.deliver(JSON.stringify({ data: { requestCreated: { id: 'r1' } } }));
    expect(socket.messages.map((m) => JSON.parse(m))).toEqual([{ id: 'sub-1', type: 'next', payload: { data: { requestCreated: { id: 'r1' } } } }]);
  });

  it(`should cut off a subscriber with ${MAX_PENDING_EVENTS} messages unwritten, ending with RATE_LIMITED`, async () => {
    const socket = stalledSocket();
    let closed = 0;
    const subscriber = new Subscriber(socket, 'slow', () => closed++);
    const next = subscriber.next();
    for (let i = 0; i < MAX_PENDING_EVENTS; i++) subscriber.deliver('{}');
    expect(closed).toBe(0);
    socket.drain();
    for (let i = 0; i < MAX_PENDING_EVENTS; i++) subscriber.deliver('{}');
    expect(closed).toBe(0);
    subscriber.deliver('{}');
    expect(closed).toBe(1);
    expect(socket.messages).toHaveLength(2 * MAX_PENDING_EVENTS);
    const last = await next;
    expect(last).toMatchObject({ done: false, value: { errors: [{ extensions: { code: 'RATE_LIMITED' } }] } });
    expect(await subscriber.next()).toEqual({ value: undefined, done: true });
    subscriber.deliver('{}');
    expect(socket.messages).toHaveLength(2 * MAX_PENDING_EVENTS);
  });

  it('should end quietly when the client completes the subscription', async () => {
    let closed = 0;
    const subscriber = new Subscriber(stalledSocket(), 'done', () => closed++);
    const next = subscriber.next();
    await subscriber.return();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(closed).toBe(1);
  });
});
