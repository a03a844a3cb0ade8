import type { MigrationObject } from '@mikro-orm/core';
import type { Db } from '../db/db';
import { IDEMPOTENCY_IN_FLIGHT_SECONDS, IDEMPOTENCY_KEY_HOURS } from '../limits';
import { Migration20261126000000_http_edge } from './Migration20261126000000_http_edge';

export const HTTP_EDGE_MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261126000000_http_edge', class: Migration20261126000000_http_edge },
];

/** How often an instance that runs timed work deletes expired keys and counters. */
export const EDGE_SWEEP_INTERVAL_MS = 10 * 60_000;

/** A remembered Idempotency-Key: its request's fingerprint and, once answered, the answer. */
export type StoredKey = {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string>;
  response: string | null;
};

/** An answer as it was sent, to send again: its status, the headers that describe its body, the body. */
export type StoredAnswer = { status: number; headers: Record<string, string>; response: string };

/**
 * The tables the HTTP edge shares between the instances on one database (idempotency keys, rate-limit
 * counters), each operation one statement, timed by the database's clock so that instances agree.
 */
export class EdgeStore {
  constructor(private readonly db: Db) {}

  private run<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.rows<T>(sql, params);
  }

  /**
   * Makes the caller the first user of a key (true), unless another call holds it: answered and
   * unexpired, or still running and not yet abandoned. The primary key decides between concurrent
   * callers: one inserts, the others find its row.
   */
  async claimKey(scope: string, key: string, fingerprint: string): Promise<boolean> {
    const rows = await this.run(
      `insert into idempotency_key (scope, key, fingerprint, headers, created_at, expires_at)
       values (?, ?, ?, '{}', now(), now() + make_interval(hours => ?))
       on conflict (scope, key) do update
         set fingerprint = excluded.fingerprint, status = null, headers = '{}', response = null,
             created_at = excluded.created_at, expires_at = excluded.expires_at
         where idempotency_key.expires_at <= now()
            or (idempotency_key.status is null and idempotency_key.created_at <= now() - make_interval(secs => ?))
       returning 1`,
      [scope, key, fingerprint, IDEMPOTENCY_KEY_HOURS, IDEMPOTENCY_IN_FLIGHT_SECONDS],
    );
    return rows.length === 1;
  }

  async findKey(scope: string, key: string): Promise<StoredKey | undefined> {
    const [row] = await this.run<StoredKey>(
      `select fingerprint, status, headers, response from idempotency_key where scope = ? and key = ? and expires_at > now()`,
      [scope, key],
    );
    return row;
  }

  async completeKey(scope: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.run(`update idempotency_key set status = ?, headers = ?, response = ? where scope = ? and key = ?`, [
      answer.status,
      JSON.stringify(answer.headers),
      answer.response,
      scope,
      key,
    ]);
  }

  /** Forgets a key whose call failed on the service's side, so that a retry runs again. */
  async releaseKey(scope: string, key: string): Promise<void> {
    await this.run(`delete from idempotency_key where scope = ? and key = ? and status is null`, [scope, key]);
  }

  /** Counts one request against `key` in a fixed window of `windowMs`: the count so far and the time left. */
  async hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }> {
    const [row] = await this.run<{ count: number; ttl_ms: string }>(
      `insert into rate_limit_counter as c (key, count, reset_at) values (?, 1, now() + make_interval(secs => ?))
       on conflict (key) do update
         set count = case when c.reset_at <= now() then 1 else c.count + 1 end,
             reset_at = case when c.reset_at <= now() then excluded.reset_at else c.reset_at end
       returning count, ceil(extract(epoch from (reset_at - now())) * 1000) as ttl_ms`,
      [key, windowMs / 1000],
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
