import { Migration } from '@mikro-orm/migrations';

// Bulk sends: one template to many recipients. Each row keeps what it asked for and, once done, its request
// (or why it failed), so a run resumed after a crash skips the rows already done; `request_id` keeps no foreign
// key, so a request deleted since does not make its row look undone. The same rows sent again
// find their bulk send by `idempotency_key` (a hash of the template and the rows).
export class Migration20261204000000_bulk_sends extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table bulk_send (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        template_id uuid references template (id) on delete set null,
        owner_id uuid not null references app_user (id) on delete cascade,
        status text not null check (status in ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED')),
        total int not null,
        created int not null default 0,
        failed int not null default 0,
        idempotency_key text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        completed_at timestamptz,
        unique (organization_id, idempotency_key)
      );
      create index bulk_send_organization_idx on bulk_send (organization_id, created_at desc, id);

      create table bulk_send_row (
        bulk_send_id uuid not null references bulk_send (id) on delete cascade,
        organization_id uuid not null references organization (id) on delete cascade,
        line int not null,
        data jsonb not null,
        request_id uuid,
        error text,
        primary key (bulk_send_id, line)
      );
    `);
  }
}
