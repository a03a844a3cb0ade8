import { Migration } from '@mikro-orm/migrations';

// Tables every instance caches (src/kernel/db/shared-cache.ts) announce their changes, whatever made
// them (the API on any instance, the CLI, a hand-written statement): one NOTIFY per changing
// statement, carrying the table's name, sent when its transaction commits. api_key and app_user: the
// caller an API key resolves to (a revoked key, a changed role or team; not an insert: a key is
// cached only once found); organization_settings: the defaults and sign-in methods a new request
// takes (an insert too: the defaults were cached).
export class Migration20261127000000_shared_caches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function notify_shared_cache() returns trigger language plpgsql as $$
      begin
        perform pg_notify('gather_shared_cache', tg_table_name);
        return null;
      end $$;
      create trigger api_key_shared_cache after update or delete or truncate on api_key
        for each statement execute function notify_shared_cache();
      create trigger app_user_shared_cache after update or delete or truncate on app_user
        for each statement execute function notify_shared_cache();
      create trigger organization_settings_shared_cache after insert or update or delete or truncate on organization_settings
        for each statement execute function notify_shared_cache();
    `);
  }
}
