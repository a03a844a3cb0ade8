import { Migration } from '@mikro-orm/migrations';

// Enumerated columns are text with CHECK constraints rather than PostgreSQL enum types, so a later
// migration can add a value inside a transaction (ALTER TYPE ... ADD VALUE cannot).
export class Migration20261121000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization (
        id uuid primary key,
        name varchar(200) not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );

      create table team (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        name varchar(200) not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index team_organization_idx on team (organization_id, name);

      create table app_user (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        team_id uuid references team (id) on delete set null,
        email varchar(320) not null,
        first_name varchar(100),
        last_name varchar(100),
        role text not null check (role in ('ADMIN', 'USER')),
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index app_user_email_uq on app_user (lower(email));
      create index app_user_organization_idx on app_user (organization_id, created_at, id);

      create table api_key (
        id uuid primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        name varchar(100),
        prefix varchar(16) not null,
        key_hash char(64) not null unique,
        created_at timestamptz not null,
        revoked_at timestamptz
      );
      create index api_key_user_idx on api_key (user_id);

      create table contact (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id) on delete cascade,
        team_id uuid references team (id) on delete set null,
        first_name varchar(100),
        last_name varchar(100),
        email varchar(320),
        phone varchar(32),
        language text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index contact_owner_email_phone_uq on contact (owner_id, lower(coalesce(email, '')), coalesce(phone, ''));
      create index contact_organization_idx on contact (organization_id, created_at, id);

      create table template (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id),
        team_id uuid references team (id) on delete set null,
        name varchar(255) not null,
        default_title varchar(255),
        personal_message text,
        reminders integer not null,
        due_date_interval integer,
        language text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index template_organization_idx on template (organization_id, created_at, id);

      create table template_item (
        id uuid primary key,
        template_id uuid not null references template (id) on delete cascade,
        position integer not null,
        type text not null check (type in ('UPLOAD', 'E_SIGNATURE', 'QUESTION')),
        name varchar(1000) not null,
        description text,
        required boolean not null,
        received boolean not null,
        question_type text,
        answer text,
        form jsonb,
        contract_id uuid,
        created_at timestamptz not null
      );
      create index template_item_template_idx on template_item (template_id, position);

      create table request (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id),
        team_id uuid references team (id) on delete set null,
        template_id uuid references template (id) on delete set null,
        name varchar(255) not null,
        state text not null check (state in (
          'PRE_LINK_GENERATED', 'INCOMPLETE_AND_FRESHLY_GENERATED', 'INCOMPLETE_AND_LINK_GENERATED',
          'INCOMPLETE_AND_LINK_SENT', 'PARTIALLY_SUBMITTED', 'REJECTED', 'SUBMITTED', 'UPDATED_AND_SUBMITTED',
          'EXPIRATION_EMAIL_SENT', 'COMPLETE_AND_SUBMITTED', 'VERIFIED', 'EXPIRED', 'CLOSED')),
        owner_opened boolean not null,
        user_opened boolean not null,
        verified boolean not null,
        rejected boolean not null,
        due_date timestamptz,
        expiration_date timestamptz,
        auto_close_at timestamptz,
        first_reminder_date timestamptz,
        personal_message text,
        notes text,
        user_metadata jsonb not null,
        language text not null,
        reminders integer not null,
        reminder_schedule jsonb not null,
        cloud_storage_folder text,
        cloud_storage_provider text not null,
        require_complete_submission boolean not null,
        disable_submission_comments boolean not null,
        mfa_enabled boolean not null,
        skip_initial_notification boolean not null,
        closed_at timestamptz,
        deleted_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check (expiration_date is null or due_date is null or expiration_date > due_date)
      );
      create index request_organization_created_idx on request (organization_id, created_at, id) where deleted_at is null;
      create index request_owner_idx on request (owner_id);
      create index request_team_idx on request (team_id);
      create index request_template_idx on request (template_id);

      create table collaborator (
        id uuid primary key,
        request_id uuid not null references request (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        role text not null check (role in ('ADMIN', 'USER')),
        position integer not null,
        created_at timestamptz not null,
        unique (request_id, user_id)
      );
      create index collaborator_user_idx on collaborator (user_id);

      create table recipient (
        id uuid primary key,
        request_id uuid not null references request (id) on delete cascade,
        contact_id uuid not null references contact (id),
        position integer not null,
        first_name varchar(100),
        last_name varchar(100),
        email varchar(320),
        phone varchar(32),
        language text,
        auth_method text not null,
        send_method text not null,
        question_text text,
        question_answer_hash char(64),
        link_nonce varchar(64) not null,
        token_hash char(64) not null unique,
        password_hash char(64) not null,
        created_at timestamptz not null
      );
      create index recipient_request_idx on recipient (request_id, position);
      create index recipient_contact_idx on recipient (contact_id);

      create table request_item (
        id uuid primary key,
        request_id uuid not null references request (id) on delete cascade,
        position integer not null,
        type text not null check (type in ('UPLOAD', 'E_SIGNATURE', 'QUESTION')),
        name varchar(1000) not null,
        description text,
        required boolean not null,
        status text not null check (status in ('INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED')),
        is_na boolean not null,
        question_type text,
        answer text,
        contract_id uuid,
        assignee_id uuid references recipient (id) on delete set null,
        verified_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index request_item_request_idx on request_item (request_id, position);
    `);
  }
}
