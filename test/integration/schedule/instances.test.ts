import { client, createTenant, createTestApp, workerDatabaseUrl, type TestApp, type Tenant } from '../../support/app';
import { createRequest, eventually } from '../../support/fixtures';
import { startService, type RunningService } from '../../support/service';
import { startSmtpServer } from '../../support/smtp';
import type { ClaimedJob } from '../../../src/modules/schedule/schedule.jobs';

const DAY = 86_400_000;

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

  it('should run each due job once when two instances race for them', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i++)
      ids.push((await createRequest(one.app, tenant.apiKey, { name: `Race ${i}`, reminders: 1 })).id);
    offsetMs = DAY + 60_000;
    const drain = async (app: TestApp) => {
      let claimed = 0;
      for (let n = await app.app.scheduleWorker.runOnce(); n > 0; n = await app.app.scheduleWorker.runOnce())
        claimed += n;
      return claimed;
    };
    const [byOne, byTwo] = await Promise.all([drain(one), drain(two)]);
    expect(byOne + byTwo).toBe(120);
    expect(byOne).toBeGreaterThan(0);
    expect(byTwo).toBeGreaterThan(0);
    const counts = await reminders(ids);
    expect(counts).toHaveLength(120);
    expect(counts.every((row) => row.count === 1)).toBe(true);
  });

  it("should leave a job whose instance died to another once its lease lapses, and roll back the dead instance's late finish", async () => {
    const request = await createRequest(one.app, tenant.apiKey, { reminders: 1 });
    offsetMs = DAY + 60_000;
    // Instance one claims the job and dies holding it: its claim, without its work.
    const [stale] = await one.db.transaction((tx) =>
      tx.rows<ClaimedJob>(
        `update job set lease = gen_random_uuid(), locked_until = ? where request_id = ? and kind = 'REMINDER'
         returning id, organization_id, request_id, kind, key, due_at, payload, attempts, lease`,
        [new Date(clock.now().getTime() + 60_000), request.id],
      ),
    );
    expect(await two.app.scheduleWorker.runOnce()).toBe(0);
    offsetMs += 61_000;
    expect(await two.app.scheduleWorker.runOnce()).toBe(1);
    expect(await reminders([request.id])).toEqual([{ request_id: request.id, count: 1 }]);
    // The first instance wakes up and finishes its stale claim: its lease is gone, so nothing it did stays.
    await (one.app.scheduleWorker as unknown as { run(job: ClaimedJob): Promise<void> }).run(stale);
    expect(await reminders([request.id])).toEqual([{ request_id: request.id, count: 1 }]);
    const [job] = await one.orm.em
      .fork()
      .execute<{ status: string; due_at: Date }[]>(
        `select status, due_at from job where request_id = ? and kind = 'REMINDER'`,
        [request.id],
      );
    expect(job.status).toBe('PENDING');
    expect(new Date(job.due_at).getTime()).toBeGreaterThan(clock.now().getTime());
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
  const LEASE_MS = 5_000;
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
      JOB_LEASE_MS: String(LEASE_MS),
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
    expect(
      (
        await api.post(`/requests/${request.id}/scheduled-reminders`, {
          send_at: new Date(Date.now() + 1_500).toISOString(),
        })
      ).statusCode,
    ).toBe(200);
    // The request stays locked by another transaction (as an owner's edit would hold it), so the
    // process that claims the job waits inside it: claimed, its transaction begun, nothing committed.
    let leaseEnd!: Date;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let lockedBy!: (pid: number) => void;
    const locked = new Promise<number>((resolve) => (lockedBy = resolve));
    const holding = t.db.transaction(async (tx) => {
      const [{ pid }] = await tx.rows<{ pid: number }>(
        'select pg_backend_pid() as pid from request where id = ? for update',
        [request.id],
      );
      lockedBy(pid);
      await released;
    });
    try {
      const lockPid = await locked;
      const [waiting] = await eventually(async () => {
        const rows = await t.db.rows<{ application_name: string; lease: string; locked_until: Date }>(
          `select a.application_name, j.lease, j.locked_until
             from pg_stat_activity a, job j
            where a.application_name = any(?) and a.wait_event_type = 'Lock' and ? = any(pg_blocking_pids(a.pid))
              and j.request_id = ? and j.kind = 'SCHEDULED_REMINDER' and j.lease is not null`,
          [names, lockPid, request.id],
        );
        return rows.length ? rows : null;
      }, 30_000);
      leaseEnd = new Date(waiting.locked_until);
      const holder = processes[names.indexOf(waiting.application_name)];
      holder.process.kill('SIGKILL');
      await holder.stop();
      expect(holder.process.signalCode).toBe('SIGKILL');
    } finally {
      release();
      await holding;
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
    // The survivor ran it only once the killed process's lease had lapsed (both read the same clock).
    const [reminder] = await t.db.rows<{ sent_at: Date }>('select sent_at from reminder where request_id = ?', [
      request.id,
    ]);
    expect(new Date(reminder.sent_at).getTime()).toBeGreaterThan(leaseEnd.getTime());
  }, 90_000);
});
