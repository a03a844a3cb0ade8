import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { buildApp } from '../../src/app';
import type { Db } from '../../src/kernel/db/db';
import { createOrm } from '../../src/kernel/db/orm';
import { DATA_MODEL } from '../../src/modules';
import { createOrganization } from '../../src/modules/identity/identity.service';
import { PLANNED, queuePlanned, type PlannedRow } from '../../src/modules/schedule/schedule.planning';
import { benchConfig } from './in-process';
import { round2, type ScenarioResult } from './report';
import { startHelper } from './servers';

// Timed work (issue 11): `count` periodic reminders due at once on one instance, from the first job
// claimed to the mail server's receipt of the last message, against a bare loop that hands the same
// rendered mail, as many times, to the same server through the service's own mail transport.
//
// One request is made through the API (one recipient, reminders every day); `count` copies of it and
// of its recipient are written with SQL, each with its REMINDER job due now. The service runs in this
// process (its job queue started for the measurement), the mail server and
// the loop in processes of their own; CPU per reminder is this process's (the service's) CPU time,
// PostgreSQL's not included, against the loop process's.

export type ReminderContext = {
  dbUrl: string;
  count: number;
  log: (line: string) => void;
  /** Where a CPU profile of this process during the measured window goes (`--profile ours`). */
  profilePath?: string;
};

/** Starts V8's sampling profiler in this process (the service's side runs here); the stop writes the profile. */
async function startProfile(): Promise<(path: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (path) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    session.disconnect();
  };
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

export async function runReminders(ctx: ReminderContext): Promise<ScenarioResult[]> {
  const sink = startHelper('lib/smtp-sink.ts');
  const orm = await createOrm({ url: ctx.dbUrl, ...DATA_MODEL, poolMax: 10 });
  try {
    const { port } = await sink.next<{ port: number }>('hello', 60_000);
    const smtpUrl = `smtp://127.0.0.1:${port}`;
    const config = { ...benchConfig(), mail: { smtpUrl, from: 'Gather <no-reply@bench.example>' } };
    const app = await buildApp({ config, orm, runJobs: false });
    await app.ready();
    const { organization, apiKey } = await createOrganization(app.db, {
      name: 'Reminder bench',
      adminEmail: `reminders-${Date.now()}@bench.example`,
    });
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/requests',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: {
          name: 'Reminder bench',
          reminders: 1,
          skip_initial_notification: true,
          personal_message: 'Please send your documents.',
          items: [{ type: 'UPLOAD', name: 'W-2', required: true }],
          recipients: [
            { first_name: 'Ana', last_name: 'Diaz', email: 'ana.diaz@bench.example', auth_method: { type: 'NONE' } },
          ],
        },
      });
      if (created.statusCode !== 200)
        throw new Error(`reminders: POST /requests answered ${created.statusCode}: ${created.body.slice(0, 300)}`);
      const original = created.json().id as string;
      // The seed's own messages and jobs are not this scenario's: they would reach the same server. Its event's
      // consumers plan its jobs first, so that none is planned again during the measurement.
      await app.jobs.runDue();
      await app.db.rows(`update notification set status = 'KEPT', next_attempt_at = null where status = 'PENDING'`);
      await app.db.transaction(async (tx) =>
        queuePlanned(
          tx,
          await tx.rows<PlannedRow>(
            `update job set status = 'CANCELLED' where status = 'PENDING' returning ${PLANNED}`,
          ),
        ),
      );
      const seeded = Date.now();
      await copyRequest(app.db, original, ctx.count);
      ctx.log(
        `reminders: ${ctx.count} requests with a due reminder written in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
      );

      sink.send({ type: 'reset' });
      await sink.next('reset', 10_000);
      const stopProfile = ctx.profilePath ? await startProfile() : null;
      const cpuBefore = cpuMs();
      const started = Date.now();
      await app.jobs.start();
      sink.send({ type: 'wait', count: ctx.count, timeoutMs: 60 * 60_000 });
      const received = await sink.next<{ count: number; last_ms: number }>('done', 60 * 60_000 + 10_000);
      const ms = received.last_ms - started;
      const ourCpuMs = cpuMs() - cpuBefore;
      await stopProfile?.(ctx.profilePath!);
      const rss = process.memoryUsage().rss / 1024 / 1024;
      if (received.count < ctx.count)
        throw new Error(`reminders: the mail server got ${received.count} of ${ctx.count}`);
      const [jobs] = await app.db.rows<{ pending: number }>(
        `select count(*)::int as pending from job where organization_id = ? and status = 'PENDING' and due_at <= now()`,
        [organization.id],
      );
      ctx.log(
        `reminders: ${ctx.count} sent in ${(ms / 1000).toFixed(1)} s (${((ctx.count / ms) * 1000).toFixed(0)}/s), ${(ourCpuMs / ctx.count).toFixed(2)} ms CPU each; ${jobs.pending} due jobs left`,
      );

      const [sample] = await app.db.rows<{ address: string; subject: string; text: string; html: string }>(
        `select address, subject, text, html from notification where organization_id = ? and kind = 'REMINDER' and status = 'SENT' limit 1`,
        [organization.id],
      );
      const loop = startHelper('lib/mail-loop.ts');
      try {
        await loop.next('hello', 60_000);
        sink.send({ type: 'reset' });
        await sink.next('reset', 10_000);
        const loopCpuBefore = loop.cpuSeconds();
        loop.send({
          type: 'run',
          smtpUrl,
          message: { to: sample.address, subject: sample.subject, text: sample.text, html: sample.html },
          count: ctx.count,
        });
        const { ms: loopMs } = await loop.next<{ ms: number }>('done', 60 * 60_000);
        const loopCpuMs = (loop.cpuSeconds() - loopCpuBefore) * 1000;
        const rate = (ctx.count / ms) * 1000;
        const loopRate = (ctx.count / loopMs) * 1000;
        ctx.log(
          `reminders: bare mail loop ${(loopMs / 1000).toFixed(1)} s (${loopRate.toFixed(0)}/s), ${(loopCpuMs / ctx.count).toFixed(2)} ms CPU each`,
        );
        return [
          {
            name: `Reminders: ${ctx.count.toLocaleString('en-US')} periodic reminders due at once on one instance, until the mail server has the last`,
            unit: 'reminders/s',
            ours: {
              rps: round2(rate),
              p50_ms: null,
              p99_ms: null,
              rss_mb: round2(rss, 0),
              total_s: round2(ms / 1000, 2),
              cpu_ms_per_reminder: round2(ourCpuMs / ctx.count, 2),
            },
            baseline: {
              name: `bare mail loop: the service's mail transport, ${ctx.count.toLocaleString('en-US')} copies of one rendered reminder, same server`,
              rps: round2(loopRate),
              p50_ms: null,
              p99_ms: null,
              rss_mb: null,
              cpu_ms_per_reminder: round2(loopCpuMs / ctx.count, 3),
            },
            ratio: Math.round((rate / loopRate) * 1000) / 1000,
            ratio_of: 'throughput',
            cpu_ratio: Math.round((loopCpuMs / ourCpuMs) * 1000) / 1000,
            target: null,
            met: null,
            note:
              'ours: each reminder is a job (taken from the job queue, request locked, recipients read, reminder and message rows, request.reminder_sent rendered and written, job finished) ' +
              'then a notification (claimed, rendered with the link, handed to the server, recorded); CPU of the service process, PostgreSQL not included',
          },
        ];
      } finally {
        await loop.stop();
      }
    } finally {
      await app.close();
    }
  } finally {
    await orm.close();
    await sink.stop();
  }
}

/**
 * `count` copies of a request and its recipients (new ids, unique token hashes), each with its REMINDER job due now
 * and that job's `schedule.run` on the job queue.
 */
async function copyRequest(db: Db, requestId: string, count: number): Promise<void> {
  const columns = async (table: string) =>
    (
      await db.rows<{ column_name: string }>(
        `select column_name from information_schema.columns where table_schema = current_schema() and table_name = ? order by ordinal_position`,
        [table],
      )
    ).map((row) => row.column_name);
  const requestColumns = (await columns('request')).filter((c) => c !== 'id');
  const recipientColumns = (await columns('recipient')).filter((c) => !['id', 'request_id', 'token_hash'].includes(c));
  await db.rows(`
    create temporary table bench_copy as select gen_random_uuid() as id from generate_series(1, ${Number(count)});
    insert into request (id, ${requestColumns.join(', ')})
      select c.id, ${requestColumns.map((col) => `r.${col}`).join(', ')} from bench_copy c, request r where r.id = '${requestId}';
    insert into recipient (id, request_id, token_hash, ${recipientColumns.join(', ')})
      select gen_random_uuid(), c.id, encode(sha256(gen_random_uuid()::text::bytea), 'hex'), ${recipientColumns.map((col) => `rc.${col}`).join(', ')}
        from bench_copy c, recipient rc where rc.request_id = '${requestId}';
    insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
      select gen_random_uuid(), r.organization_id, c.id, 'REMINDER', 'reminder:' || c.id, now(), '{}', 'PENDING', 0, now(), now()
        from bench_copy c, request r where r.id = '${requestId}';
    drop table bench_copy;
  `);
  await db.transaction(async (tx) =>
    queuePlanned(
      tx,
      await tx.rows<PlannedRow>(
        `select ${PLANNED} from job where request_id in (select id from request where organization_id = (select organization_id from request where id = ?)) and status = 'PENDING'`,
        [requestId],
      ),
    ),
  );
}
