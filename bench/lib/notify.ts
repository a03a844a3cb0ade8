import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { percentile, round2, type ScenarioResult } from './report';

// The event fan-out's next limit (issue 14, "At a million"): every change commits its event with a
// NOTIFY on one channel (src/kernel/events/outbox.ts), and PostgreSQL serialises the commits of
// transactions that notified on one lock (the notify queue's, taken from pre-commit to the end of the
// commit, WAL flush included). Committing transactions that notify therefore cannot share a WAL flush
// the way plain commits do (group commit): past some concurrency, commits queue behind that lock.
//
// Measured on the bench database, in a table of its own shaped like `event` (Gather's statement shape:
// the insert and its pg_notify in one statement, in a transaction of its own, begin and commit sent
// apart as the ORM does), with one connection LISTENing as the dispatcher does: at each concurrency,
// the commits per second and commit latency with the NOTIFY, against the same transactions without it,
// in alternation. Baseline = without; ratio = with ÷ without.

export type NotifyOptions = { dbUrl: string; levels: number[]; seconds: number; log: (line: string) => void };

const CHANNEL = 'bench_notify';
const hr = () => process.hrtime.bigint();
const DATA = JSON.stringify({
  request: {
    id: randomUUID(),
    name: 'x'.repeat(400),
    state: 'ACTIVE',
    items: [{ id: randomUUID(), name: 'Passport' }],
  },
});

type Figures = { commits: number; rps: number; p50_ms: number; p99_ms: number };

async function drive(url: string, connections: number, seconds: number, notify: boolean): Promise<Figures> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  const insert = `with inserted as (
      insert into bench_notify_event (id, organization_id, topic, data) values ($1, $2, 'request.updated', $3::jsonb) returning seq, id)
    select seq${notify ? `, pg_notify('${CHANNEL}', id::text)` : ''} from inserted`;
  const latencies: number[] = [];
  const organization = randomUUID();
  try {
    const started = hr();
    const deadline = started + BigInt(seconds * 1e9);
    await Promise.all(
      clients.map(async (client) => {
        while (hr() < deadline) {
          const at = hr();
          await client.query('begin');
          await client.query(insert, [randomUUID(), organization, DATA]);
          await client.query('commit');
          latencies.push(Number(hr() - at) / 1e6);
        }
      }),
    );
    const ms = Number(hr() - started) / 1e6;
    return {
      commits: latencies.length,
      rps: round2((latencies.length * 1000) / ms, 0),
      p50_ms: round2(percentile(latencies, 50), 2),
      p99_ms: round2(percentile(latencies, 99), 2),
    };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

export async function runNotify(options: NotifyOptions): Promise<ScenarioResult[]> {
  const admin = new Client({ connectionString: options.dbUrl });
  await admin.connect();
  const listener = new Client({ connectionString: options.dbUrl });
  await listener.connect();
  let received = 0;
  listener.on('notification', () => received++);
  await admin.query(`create table if not exists bench_notify_event (
      seq bigserial primary key, id uuid not null, organization_id uuid not null, topic text not null,
      data jsonb not null, created_at timestamptz not null default now())`);
  await listener.query(`listen ${CHANNEL}`);
  const results: ScenarioResult[] = [];
  try {
    for (const [i, connections] of options.levels.entries()) {
      // Alternate which side runs first at each level, so neither always meets a warmer cache.
      const order = i % 2 ? [true, false] : [false, true];
      const figures: Partial<Record<'with' | 'without', Figures>> = {};
      for (const notify of order) {
        const sent = received;
        const f = await drive(options.dbUrl, connections, options.seconds, notify);
        figures[notify ? 'with' : 'without'] = f;
        if (notify) {
          // Every committed NOTIFY reaches the listener: the dispatcher's side of the measurement.
          const deadline = Date.now() + 10_000;
          while (received - sent < f.commits && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          if (received - sent < f.commits)
            throw new Error(`notify: ${f.commits} commits notified, ${received - sent} notifications received`);
        }
      }
      const withNotify = figures.with!;
      const without = figures.without!;
      options.log(
        `${String(connections).padStart(3)} connections: ${withNotify.rps} commits/s with NOTIFY (p99 ${withNotify.p99_ms} ms), ${without.rps} without (p99 ${without.p99_ms} ms)`,
      );
      results.push({
        name: `Event commits with their NOTIFY, ${connections} connection${connections === 1 ? '' : 's'} committing at once`,
        ours: {
          rps: withNotify.rps,
          p50_ms: withNotify.p50_ms,
          p99_ms: withNotify.p99_ms,
          rss_mb: null,
          commits: withNotify.commits,
        },
        baseline: {
          name: 'the same transactions without the NOTIFY',
          rps: without.rps,
          p50_ms: without.p50_ms,
          p99_ms: without.p99_ms,
          rss_mb: null,
          commits: without.commits,
        },
        ratio: round2(withNotify.rps / without.rps, 3),
        ratio_of: 'throughput',
        unit: 'commits/s',
        target: null,
        met: null,
        note: `insert of an event-shaped row (${DATA.length} bytes of data) and its pg_notify in one statement, begin and commit apart, ${options.seconds} s per side; one connection LISTENing received every notification`,
      });
    }
  } finally {
    await admin.query('drop table if exists bench_notify_event').catch(() => undefined);
    await Promise.all([admin.end(), listener.end()]);
  }
  return results;
}
