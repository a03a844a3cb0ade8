import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { keepAlive } from '../../src/kernel/graphql/subscriptions';

// Real sockets on loopback: one client answers pings (as every ws and browser client does), one is
// made deaf to them (`autoPong: false`), as a peer that vanished without a closing handshake is.
describe('keepAlive (one interval for every socket, a slice per tick)', () => {
  let wss: WebSocketServer;
  let alive: { stop(): void };
  let url: string;
  // Long enough for a pong to come back on a loaded machine (a late one would drop a healthy socket).
  const INTERVAL_MS = 250;

  beforeEach(async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    alive = keepAlive(wss, INTERVAL_MS);
  });
  afterEach(async () => {
    alive.stop();
    for (const socket of wss.clients) socket.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  // `onPing` is attached before the socket opens: a ping can arrive before the caller's next line runs.
  const open = (options: WebSocket.ClientOptions = {}, onPing?: () => void) =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(url, options);
      if (onPing) socket.on('ping', onPing);
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });

  it('should ping every socket each interval and keep those that answer', async () => {
    const sockets = await Promise.all([open(), open(), open()]);
    const pings = sockets.map(() => 0);
    sockets.forEach((socket, i) => socket.on('ping', () => pings[i]++));
    while (Math.min(...pings) < 3) await new Promise((r) => setTimeout(r, INTERVAL_MS));
    expect(sockets.map((s) => s.readyState)).toEqual(sockets.map(() => WebSocket.OPEN));
    expect(wss.clients.size).toBe(3);
    sockets.forEach((s) => s.terminate());
  });

  it('should ping a slice of the sockets at a time, each of them every interval', async () => {
    alive.stop();
    alive = keepAlive(wss, INTERVAL_MS, 4);
    // Pings sent in one go (one tick of the interval): microtasks run after each timer's callback.
    const batches: number[] = [];
    let batch = 0;
    wss.on('connection', (socket) => {
      const ping = socket.ping.bind(socket);
      socket.ping = (...args: Parameters<typeof ping>) => {
        if (batch++ === 0)
          queueMicrotask(() => {
            batches.push(batch);
            batch = 0;
          });
        ping(...args);
      };
    });
    const sockets = await Promise.all(Array.from({ length: 8 }, () => open()));
    const pings = sockets.map(() => 0);
    sockets.forEach((socket, i) => socket.on('ping', () => pings[i]++));
    while (Math.min(...pings) < 2) await new Promise((r) => setTimeout(r, INTERVAL_MS));
    // 8 sockets in 4 slices: never more than 2 pings at once, and every socket kept.
    expect(Math.max(...batches)).toBe(2);
    expect(wss.clients.size).toBe(8);
    sockets.forEach((s) => s.terminate());
  });

  it('should terminate a socket that does not answer a ping by the next one, and only it', async () => {
    let deafPings = 0;
    const [healthy, deaf] = await Promise.all([open(), open({ autoPong: false }, () => deafPings++)]);
    const closed = await new Promise<number>((resolve) => deaf.once('close', (code) => resolve(code)));
    // Dropped without a closing handshake: the peer sees an abnormal closure.
    expect(closed).toBe(1006);
    expect(deafPings).toBe(1);
    expect(healthy.readyState).toBe(WebSocket.OPEN);
    await new Promise((r) => setTimeout(r, INTERVAL_MS * 3));
    expect(healthy.readyState).toBe(WebSocket.OPEN);
    expect(wss.clients.size).toBe(1);
    healthy.terminate();
  });

  it('should stop pinging once stopped', async () => {
    const socket = await open();
    alive.stop();
    // A ping sent just before the stop may still be on its way.
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
    let pings = 0;
    socket.on('ping', () => pings++);
    await new Promise((r) => setTimeout(r, INTERVAL_MS * 4));
    expect(pings).toBe(0);
    socket.terminate();
  });
});
