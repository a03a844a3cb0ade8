import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Session } from 'node:inspector';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { observeGc } from '../lib/gc.cjs';

// The side of a benchmark server process that talks to the runner (bench/lib/servers.ts) over the IPC
// channel: "ready" with its port once listening; on "stop", SIGTERM or SIGINT it closes and exits
// normally, so `node --cpu-prof` writes its profile; if the runner dies, the channel closes and the
// server exits too. On "profile-start" / "profile-stop" it records a V8 CPU profile of just that
// window (the same profiler and file format as `node --cpu-prof`, without start-up and idle time).
// Any other message type is a command of the server itself (`commands`), answered with its result
// (the fan-out and webhook scenarios ask for subscriber counts, broadcasts, the start of delivery).

export type Started = {
  /** A Fastify server (listened on by serve()), or any HTTP server already listening. */
  app: FastifyInstance | { server: Server; listen?: undefined };
  close: () => Promise<void>;
  /** Commands the runner may send (`{type, ...args}`), answered with `{type: 'reply', id, result}`. */
  commands?: Record<string, (message: Record<string, unknown>) => unknown>;
};

/** Commands every server answers: its memory (heap and external, beside the RSS the runner reads). */
const COMMON: Record<string, (message: Record<string, unknown>) => unknown> = {
  memory: () => {
    global.gc?.();
    return process.memoryUsage();
  },
  'heap-snapshot': (message) => writeHeapSnapshot(String(message.path)),
  /** The heap by space and the process's memory as it is now, or after a full collection (`gc: true`). */
  'memory-detail': (message) => {
    if (message.gc) collect();
    return { usage: process.memoryUsage(), heap: getHeapStatistics(), spaces: getHeapSpaceStatistics(), gc: gcTime };
  },
};

/**
 * Milliseconds of collection pauses so far, by kind (minor: scavenges; major: mark-compacts; incremental: marking
 * steps).
 */
const gcTime = { minor: 0, major: 0, incremental: 0, weakcb: 0, count: 0 };
observeGc((kind, ms) => {
  gcTime[kind ?? 'weakcb'] += ms;
  gcTime.count++;
});

/** A full collection, in a server started without --expose-gc too. */
function collect(): void {
  if (!global.gc) {
    setFlagsFromString('--expose-gc');
    global.gc = runInNewContext('gc');
  }
  global.gc!();
}

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: benchmark servers are started by bench/run.ts`);
  return value;
}

export function serve(name: string, start: () => Promise<Started>): void {
  let started: Started | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(code), 5000).unref();
    try {
      await started?.close();
    } finally {
      process.exit(code);
    }
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  process.on('disconnect', () => void stop(0));
  let session: Session | undefined;
  const post = (method: string, params?: object) =>
    new Promise<any>((done, fail) =>
      session!.post(method, params ?? {}, (err, result) => (err ? fail(err) : done(result))),
    );
  const reply = (id: unknown, extra: object = {}) => process.send?.({ type: 'reply', id, ...extra });
  process.on('message', (message: { type?: string; id?: unknown; path?: string }) => {
    if (message?.type === 'stop') void stop(0);
    const command = message?.type ? (started?.commands?.[message.type] ?? COMMON[message.type]) : undefined;
    if (command) {
      Promise.resolve()
        .then(() => command(message as Record<string, unknown>))
        .then(
          (result) => reply(message.id, { result }),
          (err) => reply(message.id, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
        );
    }
    if (message?.type === 'profile-start') {
      session = new Session();
      session.connect();
      void post('Profiler.enable')
        .then(() => post('Profiler.start'))
        .then(
          () => reply(message.id),
          (err) => reply(message.id, { error: String(err) }),
        );
    }
    if (message?.type === 'profile-stop') {
      void post('Profiler.stop')
        .then(({ profile }) => {
          writeFileSync(message.path!, JSON.stringify(profile));
          session!.disconnect();
          session = undefined;
          reply(message.id);
        })
        .catch((err) => reply(message.id, { error: String(err) }));
    }
  });
  start()
    .then(async (s) => {
      started = s;
      if (s.app.listen) await s.app.listen({ port: Number(process.env.BENCH_PORT ?? 0), host: '127.0.0.1' });
      const address = s.app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      process.send?.({ type: 'ready', name, port, pid: process.pid });
    })
    .catch((err) => {
      process.stderr.write(
        `${name} failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
}
