import { client, createTenant, createTestApp, workerDatabaseUrl, type TestApp, type Tenant } from '../../support/app';
import { createRequest, eventually } from '../../support/fixtures';
import { startService, type RunningService } from '../../support/service';
import { startSmtpServer } from '../../support/smtp';
import type { Db } from '../../../src/kernel/db/db';

const DAY = 86_400_000;

/**
 * Holds a request locked by a transaction of its own, as an owner's edit would, until `release`: `locked` answers the
 * backend pid holding it once it does.
 */
function holdRequest(db: Db, requestId: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let lockedBy!: (pid: number) => void;
  const locked = new Promise<number>((resolve) => (lockedBy = resolve));
  const holding = db.transaction(async (tx) => {
    const [{ pid }] = await tx.rows<{ pid: number }>(
      'select pg_backend_pid() as pid from request where id = ? for update',
      [requestId],
    );
    lockedBy(pid);
    await released;
  });
  return {
    locked,
    async release(): Promise<void> {
      release();
      await holding;
    },
  };
}

describe('timed jobs across instances on one database', () => {
  let one: TestApp;
  let two: TestApp;
  let tenant: Tenant;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const reminders = (requestIds: string[]) =>
    one.db.rows<{ request_id: string; count: number }>(
      `select request_id, count(*)::int as count from notification where kind = 'REMINDER' and request_id = any(?::uuid[]) group by request_id`,
      [requestIds],
    );

  beforeAll(async () => {
    one = await createTestApp({}, { clock });
    two = await createTestApp({}, { clock });
    tenant = await createTenant(one.db);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });
  beforeEach(() => {
    offsetMs = 0;
  });

  /** A second `schedule.run` job for each row (no key: it does not replace the first), as a crash's rerun makes. */
  const duplicateJobs = (requestIds: string[]) =>
    one.db.transaction((tx) =>
      tx.execute(
        `select graphile_worker.add_job('schedule.run', json_build_object('jobId', id), run_at => due_at)
           from job where kind = 'REMINDER' and request_id = any(?::uuid[])`,
        [requestIds],
      ),
    );

  it('should run each due job once when two instances race for them, each row run by two jobs', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i++)
      ids.push((await createRequest(one.app, tenant.apiKey, { name: `Race ${i}`, reminders: 1 })).id);
    // Their events' consumer plans their reminders.
    await one.app.jobs.runDue();
    await duplicateJobs(ids);
    offsetMs = DAY + 60_000;
    await Promise.all([one.app.jobs.runDue(), two.app.jobs.runDue()]);
    const counts = await reminders(ids);
    expect(counts).toHaveLength(120);
    expect(counts.every((row) => row.count === 1)).toBe(true);
    // Each due again a day later, with one job to run it then.
    const jobs = await one.db.rows<{ status: string; due_at: Date; queued: number }>(
      `select j.status, j.due_at, (select count(*)::int from graphile_worker.jobs g where g.key = 'timed:' || j.key) as queued
         from job j where j.kind = 'REMINDER' and j.request_id = any(?::uuid[])`,
      [ids],
    );
    expect(jobs).toHaveLength(120);
    for (const job of jobs) {
      expect(job).toMatchObject({ status: 'PENDING', queued: 1 });
      expect(new Date(job.due_at).getTime()).toBeGreaterThan(clock.now().getTime());
    }
  });

  it('should take effect once when two runs of one row wait for its request: the second finds the row moved', async () => {
    const request = await createRequest(one.app, tenant.apiKey, { reminders: 1 });
    await one.app.jobs.runDue();
    offsetMs = DAY + 60_000;
    // The request stays locked (as an owner's edit would hold it): the first run waits for it; a second job of the row,
    // added then and run by the other instance, waits too, then finds the row moved by the first and rolls back.
    const hold = holdRequest(one.db, request.id);
    const waiting = () =>
      one.db.rows<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
    let runs: Promise<unknown>;
    try {
      await hold.locked;
      const first = one.app.jobs.runDue();
      await eventually(async () => (await waiting()).length === 1);
      await duplicateJobs([request.id]);
      const second = two.app.jobs.runDue();
      await eventually(async () => (await waiting()).length === 2);
      runs = Promise.all([first, second]);
    } finally {
      await hold.release();
    }
    await runs;
    expect(await reminders([request.id])).toEqual([{ request_id: request.id, count: 1 }]);
  });
});

describe('timed jobs in two service processes', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let processes: RunningService[] = [];
  // Each process's connections carry its name (PGAPPNAME, read by node-postgres), so the test can tell
  // from pg_stat_activity which process is in the middle of a job.
  const names = ['gather-a', 'gather-b'];
  const reminderMails = () => smtp.received.filter((m) => m.mail.subject?.startsWith('Reminder:'));

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    smtp = await startSmtpServer();
    const env = {
      DATABASE_URL: workerDatabaseUrl(),
      GATHER_SECRET: 's'.repeat(40),
      LOG_LEVEL: 'warn',
      SMTP_URL: smtp.url,
    };
    processes = await Promise.all(names.map((name) => startService({ ...env, PGAPPNAME: name })));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await t.close();
    await smtp.close();
  });

  it('should send each scheduled reminder once, counted at the mail server', async () => {
    const count = 40;
    const api = client(t.app, tenant.apiKey);
    const addresses = Array.from({ length: count }, (_, i) => `race-${i}@example.com`);
    const requests = [];
    for (const email of addresses) {
      requests.push(
        await createRequest(t.app, tenant.apiKey, {
          name: `Scheduled ${email}`,
          reminders: 0,
          recipients: [{ first_name: 'R', email, auth_method: { type: 'NONE' } }],
        }),
      );
    }
    // All due together, a few seconds on: both processes poll every second and find them at once.
    const sendAt = Date.now() + 3_000;
    for (const request of requests) {
      const at = new Date(Math.max(sendAt, Date.now() + 500)).toISOString();
      expect((await api.post(`/requests/${request.id}/scheduled-reminders`, { send_at: at })).statusCode).toBe(200);
    }
    await eventually(async () => reminderMails().length >= count, 30_000);
    // Long enough for a second copy to arrive if either process were to send one.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const to = reminderMails()
      .map((m) => m.envelopeTo[0])
      .sort();
    expect(to).toEqual([...addresses].sort());
  }, 60_000);

  it('should leave a job to the other process when the one in the middle of it is killed, and send it once', async () => {
    const api = client(t.app, tenant.apiKey);
    const email = 'killed@example.com';
    const request = await createRequest(t.app, tenant.apiKey, {
      name: 'Killed mid-job',
      reminders: 0,
      recipients: [{ first_name: 'K', email, auth_method: { type: 'NONE' } }],
    });
    const scheduled = await api.post(`/requests/${request.id}/scheduled-reminders`, {
      send_at: new Date(Date.now() + 1_500).toISOString(),
    });
    expect(scheduled.statusCode).toBe(200);
    // The request stays locked by another transaction (as an owner's edit would hold it), so the
    // process that takes the job waits inside it: the job taken, its transaction begun, nothing committed.
    let killedAt!: Date;
    const hold = holdRequest(t.db, request.id);
    try {
      const lockPid = await hold.locked;
      const [waiting] = await eventually(async () => {
        const rows = await t.db.rows<{ application_name: string }>(
          `select application_name from pg_stat_activity
            where application_name = any(?) and wait_event_type = 'Lock' and ? = any(pg_blocking_pids(pid))`,
          [names, lockPid],
        );
        return rows.length ? rows : null;
      }, 30_000);
      const holder = processes[names.indexOf(waiting.application_name)];
      killedAt = new Date();
      holder.process.kill('SIGKILL');
      await holder.stop();
      expect(holder.process.signalCode).toBe('SIGKILL');
    } finally {
      await hold.release();
    }
    const survivor = processes.find((p) => p.process.exitCode === null && p.process.signalCode === null)!;
    expect(survivor).toBeDefined();
    await eventually(async () => reminderMails().some((m) => m.envelopeTo.includes(email)), 30_000);
    // Long enough for a second copy to arrive if the killed process's claim were ever to count.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(reminderMails().filter((m) => m.envelopeTo.includes(email))).toHaveLength(1);
    const [job] = await t.db.rows<{ status: string }>(
      `select status from job where request_id = ? and kind = 'SCHEDULED_REMINDER'`,
      [request.id],
    );
    expect(job.status).toBe('DONE');
    // The killed process's job was freed (not left locked for hours) and finished by the survivor.
    expect(
      await t.db.rows('select 1 from graphile_worker.jobs where key = ?', [`timed:scheduled:${scheduled.json().id}`]),
    ).toEqual([]);
    const [reminder] = await t.db.rows<{ sent_at: Date }>('select sent_at from reminder where request_id = ?', [
      request.id,
    ]);
    expect(new Date(reminder.sent_at).getTime()).toBeGreaterThan(killedAt.getTime());
  }, 90_000);
});
