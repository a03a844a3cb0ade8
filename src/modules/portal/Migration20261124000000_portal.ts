import { Migration } from '@mikro-orm/migrations';

// The recipient's side: one-time codes and sessions (stored only as hashes), the sign-in counters that
// lock a step after repeated failures, and each submission with its comment. A recipient's rows go
// with the recipient.
export class Migration20261124000000_portal extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table recipient_code (
        id uuid primary key,
        recipient_id uuid not null references recipient (id) on delete cascade,
        code_hash char(64) not null,
        channel text not null check (channel in ('EMAIL', 'SMS')),
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      )`);
    this.addSql('create index recipient_code_recipient_created on recipient_code (recipient_id, created_at desc)');
    this.addSql(`
      create table recipient_session (
        id uuid primary key,
        recipient_id uuid not null references recipient (id) on delete cascade,
        token_hash char(64) not null unique,
        link_hash char(64) not null,
        expires_at timestamptz not null,
        ip text,
        user_agent text,
        created_at timestamptz not null
      )`);
    this.addSql('create index recipient_session_recipient on recipient_session (recipient_id)');
    this.addSql(`
      create table recipient_access (
        recipient_id uuid primary key references recipient (id) on delete cascade,
        question_failures integer not null default 0,
        question_locked_until timestamptz,
        code_failures integer not null default 0,
        code_locked_until timestamptz,
        opened_at timestamptz,
        signed_in_at timestamptz
      )`);
    this.addSql(`
      create table submission (
        id uuid primary key,
        request_id uuid not null references request (id) on delete cascade,
        recipient_id uuid references recipient (id) on delete set null,
        outcome text not null,
        comment text,
        created_at timestamptz not null
      )`);
    this.addSql('create index submission_request_created on submission (request_id, created_at desc)');
  }
}
