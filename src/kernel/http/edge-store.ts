import type { MigrationObject } from '@mikro-orm/core';
import type { Db } from '../db/db';
import { Migration20261126000000_http_edge } from './Migration20261126000000_http_edge';

export const HTTP_EDGE_MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261126000000_http_edge', class: Migration20261126000000_http_edge },
];

/** How often an instance that runs timed work deletes expired keys and counters. */
export const EDGE_SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * The tables the HTTP edge shares between the instances on one database (rate-limit counters; the
 * idempotency keys are written by kernel/http/idempotency.ts in their calls' transactions), each
 * operation one statement, timed by the database's clock so that instances agree.
 */
export class EdgeStore {
  constructor(private readonly db: Db) {}

  private run<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.rows<T>(sql, params);
  }

  /**
   * Counts `hits` requests (one, or a batch's operations) against `key` in a fixed window of `windowMs`:
   * the count so far and the time left.
   */
  async hit(key: string, windowMs: number, hits = 1): Promise<{ count: number; ttlMs: number }> {
    const [row] = await this.run<{ count: number; ttl_ms: string }>(
      `insert into rate_limit_counter as c (key, count, reset_at) values (?, ?, now() + make_interval(secs => ?))
       on conflict (key) do update
         set count = case when c.reset_at <= now() then excluded.count else c.count + excluded.count end,
             reset_at = case when c.reset_at <= now() then excluded.reset_at else c.reset_at end
       returning count, ceil(extract(epoch from (reset_at - now())) * 1000) as ttl_ms`,
      [key, hits, windowMs / 1000],
    );
    return { count: row.count, ttlMs: Math.max(0, Number(row.ttl_ms)) };
  }

  /** Deletes expired keys and counters (run periodically by one or all instances: it is idempotent). */
  async sweep(): Promise<{ keys: number; counters: number }> {
    const keys = await this.run(`delete from idempotency_key where expires_at <= now() returning 1`);
    const counters = await this.run(`delete from rate_limit_counter where reset_at <= now() returning 1`);
    return { keys: keys.length, counters: counters.length };
  }
}
