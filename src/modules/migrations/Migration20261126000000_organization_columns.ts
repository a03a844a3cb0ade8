import { Migration } from '@mikro-orm/migrations';

/**
 * The tenant-owned tables that reached their organization only through a join, each with the parent
 * whose organization a row takes (listed parents first: a child's parent is filled before it).
 */
const TABLES: [table: string, parent: string, parentKey: string][] = [
  ['api_key', 'app_user', 'user_id'],
  ['template_item', 'template', 'template_id'],
  ['collaborator', 'request', 'request_id'],
  ['recipient', 'request', 'request_id'],
  ['request_item', 'request', 'request_id'],
  ['document', 'request', 'request_id'],
  ['submission', 'request', 'request_id'],
  ['recipient_code', 'recipient', 'recipient_id'],
  ['recipient_session', 'recipient', 'recipient_id'],
  ['recipient_access', 'recipient', 'recipient_id'],
  ['webhook_delivery', 'webhook', 'webhook_id'],
  ['webhook_attempt', 'webhook_delivery', 'delivery_id'],
];

// Every tenant-owned row carries `organization_id`, so every statement can filter by it: the
// precondition for distributing tables by organization (Citus) or partitioning them, cheap while
// the tables are small. Backfilled with one update per table from its parent (set-based), then made
// NOT NULL with its foreign key. No new index: the hot statements that now also filter by
// organization (children of the listed requests) find their rows through the parent's index, and
// the organization is checked on those few rows.
export class Migration20261126000000_organization_columns extends Migration {
  override async up(): Promise<void> {
    for (const [table, parent, parentKey] of TABLES) {
      this.addSql(`alter table ${table} add column organization_id uuid`);
      this.addSql(
        `update ${table} child set organization_id = parent.organization_id from ${parent} parent where parent.id = child.${parentKey}`,
      );
      this.addSql(`alter table ${table} alter column organization_id set not null`);
      this.addSql(
        `alter table ${table} add constraint ${table}_organization_id_foreign foreign key (organization_id) references organization (id) on delete cascade`,
      );
    }
  }
}
