import { Migration } from '@mikro-orm/migrations';

// Retention: a closed request's documents are deleted `retention_days` after it closed, by a
// RETENTION job planned when it closes (and re-planned when the setting changes). Requests already
// closed in an organization that had set the days get theirs now.
export class Migration20261126000000_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table job drop constraint job_kind_check;
      alter table job add constraint job_kind_check check (kind in
        ('REMINDER', 'DEFERRED_REMINDER', 'SCHEDULED_REMINDER', 'EXPIRATION_WARNING', 'EXPIRE', 'AUTO_CLOSE', 'ESCALATION', 'RETENTION'));

      insert into job (id, organization_id, request_id, kind, key, due_at, payload, status, attempts, created_at, updated_at)
      select gen_random_uuid(), r.organization_id, r.id, 'RETENTION', 'retention:' || r.id,
             coalesce(r.closed_at, r.updated_at) + s.retention_days * interval '1 day', '{}'::jsonb, 'PENDING', 0, now(), now()
        from request r join organization_settings s on s.organization_id = r.organization_id
       where r.state = 'CLOSED' and r.deleted_at is null and s.retention_days is not null
      on conflict (key) do nothing;
    `);
  }
}
