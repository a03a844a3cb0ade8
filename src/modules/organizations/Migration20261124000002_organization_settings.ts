import { Migration } from '@mikro-orm/migrations';

// One row per organization that changed its settings, branding or confirmation page; an organization
// without a row has the defaults (organization.settings.ts). The logo's bytes live here too: they are
// small (MAX_LOGO_BYTES) and served by one lookup on the organization and their hash.
export class Migration20261124000002_organization_settings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization_settings (
        organization_id uuid primary key references organization (id) on delete cascade,
        default_expiration_days integer,
        default_reminders integer not null,
        default_language text not null,
        allowed_auth_methods text[] not null,
        require_complete_submission boolean not null,
        retention_days integer,
        primary_color text,
        sender_name text,
        support_email text,
        logo bytea,
        logo_type text,
        logo_sha256 text,
        confirmation_enabled boolean not null,
        confirmation_message text,
        updated_at timestamptz not null
      );
    `);
  }
}
