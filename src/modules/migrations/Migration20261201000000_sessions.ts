import { Migration } from '@mikro-orm/migrations';

// Users sign in in a browser (the sessions module): links mailed through the notification outbox (a new kind of
// message), each working once within its minutes, and the sessions they open. Tokens are kept as hashes only; a
// user's links and sessions go with the user.
export class Migration20261201000000_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table notification drop constraint notification_kind_check;
      alter table notification add constraint notification_kind_check check (kind in
        ('INVITATION', 'ONE_TIME_CODE', 'CHANGES_REQUESTED', 'REQUEST_SUBMITTED', 'REQUEST_COMPLETED', 'REMINDER', 'EXPIRATION_WARNING', 'ESCALATION', 'SHARE_INVITATION', 'SIGN_IN_LINK'));
    `);
    this.addSql(`
      create table sign_in_link (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        token_hash char(64) not null unique,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      )`);
    this.addSql('create index sign_in_link_user on sign_in_link (user_id)');
    this.addSql(`
      create table user_session (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        token_hash char(64) not null unique,
        idle_expires_at timestamptz not null,
        expires_at timestamptz not null,
        last_seen_at timestamptz not null,
        ip text,
        user_agent text,
        created_at timestamptz not null
      )`);
    this.addSql('create index user_session_user on user_session (user_id)');
  }
}
