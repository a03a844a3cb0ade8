import { Migration } from '@mikro-orm/migrations';

// What the HTTP edge shares between instances on one database: the first answer to each
// Idempotency-Key, and rate-limit counters. The counters are UNLOGGED (not written to the WAL): they
// are rewritten on every request and worth nothing after a crash, which empties them.
export class Migration20261126000000_http_edge extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_key (
        scope text not null,
        key text not null,
        fingerprint text not null,
        status integer,
        headers jsonb not null,
        response text,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (scope, key)
      );
      create index idempotency_key_expires_idx on idempotency_key (expires_at);

      create unlogged table rate_limit_counter (
        key text primary key,
        count integer not null,
        reset_at timestamptz not null
      );
      create index rate_limit_counter_reset_idx on rate_limit_counter (reset_at);
    `);
  }
}
