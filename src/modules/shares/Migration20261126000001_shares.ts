import { Migration } from '@mikro-orm/migrations';

// File sharing: a share, its recipients (links and sign-in as a request's recipients have, in tables
// of the same shape), its files (stored files, released with the last reference) and the download log.
// A share's rows go with it; a download outlives its file (`share_file_id` set null, the name kept).
export class Migration20261126000001_shares extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table share (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id),
        title text not null,
        custom_message text,
        language text not null,
        send_method text not null,
        status text not null check (status in ('DRAFT', 'SENT', 'EXPIRED', 'DELETED')),
        expiration_date timestamptz,
        deletion_date timestamptz,
        sent_at timestamptz,
        files_deleted_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index share_organization_created on share (organization_id, created_at desc, id);

      create table share_recipient (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        share_id uuid not null references share (id) on delete cascade,
        email varchar(320),
        first_name varchar(100),
        last_name varchar(100),
        phone varchar(40),
        auth_method text not null,
        question_text text,
        question_answer_hash char(64),
        send_method text not null,
        completion_order integer,
        position integer not null,
        link_nonce varchar(32) not null,
        token_hash char(64) not null unique,
        password_hash char(64) not null,
        created_at timestamptz not null
      );
      create index share_recipient_share on share_recipient (share_id, position);

      create table share_file (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        share_id uuid not null references share (id) on delete cascade,
        file_id uuid not null references stored_file (id),
        position integer not null,
        created_at timestamptz not null
      );
      create index share_file_share on share_file (share_id, position);
      create index share_file_file on share_file (file_id);

      create table share_download (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        share_id uuid not null references share (id) on delete cascade,
        share_file_id uuid references share_file (id) on delete set null,
        recipient_id uuid not null references share_recipient (id) on delete cascade,
        file_name varchar(255) not null,
        size integer not null,
        ip text,
        user_agent text,
        downloaded_at timestamptz not null
      );
      create index share_download_share on share_download (share_id, downloaded_at desc, id);

      create table share_recipient_code (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        recipient_id uuid not null references share_recipient (id) on delete cascade,
        code_hash char(64) not null,
        channel text not null check (channel in ('EMAIL', 'SMS')),
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );
      create index share_recipient_code_recipient_created on share_recipient_code (recipient_id, created_at desc);
      create table share_recipient_session (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        recipient_id uuid not null references share_recipient (id) on delete cascade,
        token_hash char(64) not null unique,
        link_hash char(64) not null,
        expires_at timestamptz not null,
        ip text,
        user_agent text,
        created_at timestamptz not null
      );
      create index share_recipient_session_recipient on share_recipient_session (recipient_id);
      create table share_recipient_access (
        recipient_id uuid primary key references share_recipient (id) on delete cascade,
        organization_id uuid not null references organization (id) on delete cascade,
        question_failures integer not null default 0,
        question_locked_until timestamptz,
        code_failures integer not null default 0,
        code_locked_until timestamptz,
        opened_at timestamptz,
        signed_in_at timestamptz
      );
    `);
  }
}
