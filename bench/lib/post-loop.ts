import { Agent, request } from 'node:http';
import { Pool } from 'pg';

// Baseline of the webhook scenario, in a process of its own: a bare HTTP POST loop sending `count`
// copies of one body (a real delivery's, with its headers) to the receiver, `concurrency` at a time,
// through a keep-alive agent as the service's delivery task. No signing. With `record`, each lane, once a
// POST is answered, inserts one row for it (status, latency, the answer's first bytes) into the
// `bare_delivery` table before its next POST, through a pg Pool of `record.poolMax` connections: what
// the service must do at least (it records every attempt); the runner creates and empties the table.
// Without it: the ceiling, no database.
//   run {url, body, headers, count, concurrency, record?: {dbUrl, poolMax}} -> done {ms, latencies_ms, failures}

type Run = {
  type?: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  count: number;
  concurrency: number;
  record?: { dbUrl: string; poolMax: number };
};
type Answer = { status: number; excerpt: string; latencyMs: number };

process.on('message', async (message: Run) => {
  if (message?.type !== 'run') return;
  const { url, body, headers, count, concurrency, record } = message;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const pool = record ? new Pool({ connectionString: record.dbUrl, max: record.poolMax }) : null;
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const post = () =>
    new Promise<Answer | null>((resolve) => {
      const started = process.hrtime.bigint();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (response) => {
          let excerpt = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (excerpt.length < 500) excerpt += chunk;
          });
          response.on('end', () => {
            if (response.statusCode! < 200 || response.statusCode! >= 300) failures++;
            const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
            latencies.push(latencyMs);
            resolve({ status: response.statusCode!, excerpt: excerpt.slice(0, 500), latencyMs });
          });
        },
      );
      req.on('error', () => {
        failures++;
        resolve(null);
      });
      req.end(body);
    });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const answer = await post();
        if (pool && answer) {
          await pool.query(`insert into bare_delivery (status, latency_ms, response, at) values ($1, $2, $3, now())`, [
            answer.status,
            Math.round(answer.latencyMs),
            answer.excerpt,
          ]);
        }
      }
    }),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  agent.destroy();
  await pool?.end();
  process.send?.({ type: 'done', ms, latencies_ms: latencies, failures });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'hello' });
