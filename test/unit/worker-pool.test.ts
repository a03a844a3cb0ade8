import { join } from 'node:path';
import { WorkerLimitError, WorkerPool, workerTask } from '../../src/kernel/workers/pool';
import type * as tasks from '../support/worker-tasks';

const FILE = join(__dirname, '../support/worker-tasks.ts');
const echo = workerTask<typeof tasks.echo>(FILE, 'echo');
const refuse = workerTask<typeof tasks.refuse>(FILE, 'refuse');
const spin = workerTask<typeof tasks.spin>(FILE, 'spin');
const grow = workerTask<typeof tasks.grow>(FILE, 'grow');

describe('WorkerPool', () => {
  const pool = new WorkerPool({ size: 2, heapMb: 32, timeoutMs: 3000, idleMs: 60_000 });
  afterAll(() => pool.close());

  it('should run tasks in workers, answer their questions and bring back AppErrors whole', async () => {
    expect(await pool.run(echo, () => ({ text: 'hello' }))).toBe('hello');
    expect(
      await pool.run(
        echo,
        () => ({ text: 'ask' }),
        async (question) => `answer to ${question}`,
      ),
    ).toBe('answer to name');
    await expect(pool.run(refuse, () => undefined)).rejects.toMatchObject({
      code: 'VALIDATION',
      userErrors: [{ field: ['file'], message: 'Refused in the worker', code: 'INVALID' }],
    });
  });

  it('should stop a task past its time budget or heap, and keep serving the others', async () => {
    const [spun, grown, meanwhile] = await Promise.allSettled([
      pool.run(spin, () => undefined),
      pool.run(grow, () => undefined),
      pool.run(echo, () => ({ text: 'after' })),
    ]);
    expect(spun).toEqual({ status: 'rejected', reason: new WorkerLimitError('time') });
    expect((spun as PromiseRejectedResult).reason.limit).toBe('time');
    expect((grown as PromiseRejectedResult).reason).toBeInstanceOf(WorkerLimitError);
    expect((grown as PromiseRejectedResult).reason.limit).toBe('memory');
    expect(meanwhile).toEqual({ status: 'fulfilled', value: 'after' });
    expect(await pool.run(echo, () => ({ text: 'still here' }))).toBe('still here');
  });
});
