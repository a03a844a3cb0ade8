import { Agent, request } from 'node:http';

// Baseline of the webhook scenario, in a process of its own: a bare HTTP POST loop sending `count`
// copies of one body (a real delivery's, with its headers) to the receiver, `concurrency` at a time,
// through a keep-alive agent as the DeliveryWorker's. No database, no signing: the ceiling.
//   run {url, body, headers, count, concurrency} -> done {ms, latencies_ms, failures}

process.on('message', async (message: { type?: string; url: string; body: string; headers: Record<string, string>; count: number; concurrency: number }) => {
  if (message?.type !== 'run') return;
  const { url, body, headers, count, concurrency } = message;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const post = () =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode! < 200 || response.statusCode! >= 300) failures++;
            latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
            resolve();
          });
        },
      );
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end(body);
    });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await post();
      }
    }),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  agent.destroy();
  process.send?.({ type: 'done', ms, latencies_ms: latencies, failures });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'hello' });
