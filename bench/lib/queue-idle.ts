import type { Client } from 'pg';

/**
 * Waits until Gather's job queue has no job due (the effects its writes left to their consumers, run after the
 * commits), polling every 50 ms, at most `maxMs`; answers the milliseconds waited.
 */
export async function queueIdle(pg: Pick<Client, 'query'>, maxMs = 120_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < maxMs) {
    const { rows } = await pg.query<{ n: string }>(
      'select count(*) as n from graphile_worker.jobs where run_at <= now()',
    );
    if (Number(rows[0].n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}
