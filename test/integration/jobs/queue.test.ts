import { createTestApp, type TestApp } from '../../support/app';
import { eventually } from '../../support/fixtures';
import { addJob, addJobs, COLLECT_QUEUES_TASK } from '../../../src/kernel/jobs/queue';

// Named queues leave a row each in graphile-worker's tables; `collectQueues` deletes those no job uses, never one
// that a transaction still open has just added a job to.
describe('collecting empty job queues', () => {
  let t: TestApp;
  const QUEUE = 'collect:test';

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const queueRows = async () =>
    (
      await t.db.rows<{ n: number }>(
        'select count(*)::int as n from graphile_worker._private_job_queues where queue_name = ?',
        [QUEUE],
      )
    )[0].n;
  const waiting = async () =>
    (
      await t.db.rows<{ n: number }>('select count(*)::int as n from graphile_worker.jobs where queue_name = ?', [
        QUEUE,
      ])
    )[0].n;
  // A job of a real task that does nothing: the consumers of an event that is not there.
  const add = () =>
    t.db.transaction((tx) =>
      addJob(tx, 'event', { eventId: '00000000-0000-4000-8000-000000000000' }, { queue: QUEUE }),
    );

  it('should delete the row of a queue whose jobs are done, and keep those of queues with jobs', async () => {
    await add();
    expect([await queueRows(), await waiting()]).toEqual([1, 1]);
    expect(await t.app.jobs.collectQueues()).toBe(true);
    expect(await queueRows()).toBe(1);

    await t.app.jobs.runDue();
    expect([await queueRows(), await waiting()]).toEqual([1, 0]);
    expect(await t.app.jobs.collectQueues()).toBe(true);
    expect(await queueRows()).toBe(0);
  });

  it('should wait for a transaction adding a job to a queue, and leave the queue to its job', async () => {
    await add();
    await t.app.jobs.runDue();
    expect([await queueRows(), await waiting()]).toEqual([1, 0]);

    // A transaction adds a job to the existing, empty queue and has not committed when the collection starts.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let added!: () => void;
    const jobAdded = new Promise<void>((resolve) => (added = resolve));
    const writer = t.db.transaction(async (tx) => {
      await addJob(tx, 'event', { eventId: '00000000-0000-4000-8000-000000000000' }, { queue: QUEUE });
      added();
      await committed;
    });
    await jobAdded;
    const collecting = t.app.jobs.collectQueues();
    await new Promise((resolve) => setTimeout(resolve, 50));
    commit();
    await writer;
    expect(await collecting).toBe(true);
    // Its queue is still there, so the job runs.
    expect([await queueRows(), await waiting()]).toEqual([1, 1]);
    await t.app.jobs.runDue();
    expect(await waiting()).toBe(0);
  });

  it('should give up, and delete nothing, when such a transaction stays open (jobs added in bulk)', async () => {
    expect(await queueRows()).toBe(1);
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let added!: () => void;
    const jobAdded = new Promise<void>((resolve) => (added = resolve));
    const writer = t.db.transaction(async (tx) => {
      await addJobs(tx, 'event', [{ payload: { eventId: '00000000-0000-4000-8000-000000000000' }, queue: QUEUE }]);
      added();
      await committed;
    });
    await jobAdded;
    expect(await t.app.jobs.collectQueues()).toBe(false);
    commit();
    await writer;
    expect([await queueRows(), await waiting()]).toEqual([1, 1]);
    await t.app.jobs.runDue();
    expect(await waiting()).toBe(0);
  });

  it('should add jobs in bulk in the order given, a key given twice once with its last payload', async () => {
    const payload = (n: number) => ({ eventId: `00000000-0000-4000-8000-00000000000${n}` });
    await t.db.transaction((tx) =>
      addJobs(tx, 'event', [
        { payload: payload(1), queue: QUEUE, key: 'bulk:a' },
        { payload: payload(2), queue: QUEUE },
        { payload: payload(3), queue: QUEUE, key: 'bulk:a' },
        { payload: payload(4), queue: QUEUE, key: 'bulk:b' },
      ]),
    );
    const jobs = await t.db.rows<{ payload: object; key: string | null }>(
      `select j.payload, j.key from graphile_worker._private_jobs j
         join graphile_worker._private_job_queues q on q.id = j.job_queue_id
        where q.queue_name = ? order by j.run_at, j.id`,
      [QUEUE],
    );
    expect(jobs).toEqual([
      { payload: payload(2), key: null },
      { payload: payload(3), key: 'bulk:a' },
      { payload: payload(4), key: 'bulk:b' },
    ]);
    await t.app.jobs.runDue();
    expect(await waiting()).toBe(0);
  });
});

describe('the running job queue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { runJobs: true });
  });
  afterAll(async () => t.close());

  it('should schedule the collection of empty queues once a minute', async () => {
    const known = await eventually(async () => {
      const rows = await t.db.rows<{ identifier: string }>(
        'select identifier from graphile_worker._private_known_crontabs where identifier = ?',
        [COLLECT_QUEUES_TASK],
      );
      return rows.length > 0 && rows;
    });
    expect(known).toEqual([{ identifier: COLLECT_QUEUES_TASK }]);
  });
});
