import { createServer } from 'node:http';
import { serve } from './child';

// The webhook receiver of the webhook scenario, in a process of its own: answers every POST with
// 200 "ok" once its body has arrived (as test/support/receiver.ts does, without verifying signatures:
// the runner verifies a sample with the standardwebhooks package before measuring). The runner reads
// its counters through commands:
//   reset {sample?, latency?}  zero the counters; keep the first delivery (headers and body); note, per
//                              delivery, the wall-clock time since its `created_at` (the event's) and its
//                              arrival: its `webhook-id` (the event's id) and the monotonic clock (hrtime ns)
//   wait {count, timeoutMs}    resolves once `count` POSTs were answered: {count, first, last} (hrtime ns)
//   stats                      {count, first, last, sample, latencies_ms, arrivals: [webhook-id, hrtime ns][]}
serve('receiver', async () => {
  let count = 0;
  let first = 0n;
  let last = 0n;
  let keepSample = false;
  let trackLatency = false;
  let sample: { headers: Record<string, unknown>; body: string } | null = null;
  let latencies: number[] = [];
  let arrivals: Array<[string, string]> = [];
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const now = process.hrtime.bigint();
      if (count++ === 0) first = now;
      last = now;
      if (keepSample && !sample) sample = { headers: request.headers, body: Buffer.concat(chunks).toString() };
      if (trackLatency) {
        const createdAt = /"created_at":"([^"]+)"/.exec(Buffer.concat(chunks).toString())?.[1];
        if (createdAt) latencies.push(Date.now() - Date.parse(createdAt));
        arrivals.push([String(request.headers['webhook-id']), String(now)]);
      }
      if (waiters.length) {
        const due = waiters.filter((w) => count >= w.count);
        waiters = waiters.filter((w) => count < w.count);
        for (const w of due) w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', resolve));
  const stats = () => ({ count, first: String(first), last: String(last) });
  return {
    app: { server },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    commands: {
      reset: (message) => {
        count = 0;
        first = last = 0n;
        sample = null;
        latencies = [];
        arrivals = [];
        keepSample = Boolean(message.sample);
        trackLatency = Boolean(message.latency);
        return stats();
      },
      wait: (message) =>
        new Promise((resolve, reject) => {
          const wanted = Number(message.count);
          if (count >= wanted) return resolve(stats());
          const timer = setTimeout(
            () => reject(new Error(`receiver: ${count} of ${wanted} deliveries after ${message.timeoutMs} ms`)),
            Number(message.timeoutMs),
          );
          waiters.push({ count: wanted, resolve: () => (clearTimeout(timer), resolve(stats())) });
        }),
      stats: () => ({ ...stats(), sample, latencies_ms: latencies, arrivals }),
    },
  };
});
