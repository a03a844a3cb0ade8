import { Migration } from '@mikro-orm/migrations';

// An organization's connected cloud storage: one row per provider it connected (S3 today). What is not
// secret (bucket, region, endpoint) is stored plainly, the access keys sealed with the server secret
// (as the signing certificate is): a copy of the database alone does not reveal them. Copies to it are
// jobs of the timed work's queue, of the kind CLOUD_COPY: job kinds are no longer a closed set (modules
// contribute theirs, `jobKinds`), so the queue's check of them goes.
export class Migration20261126000100_cloud_storage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table cloud_storage_connection (
        organization_id uuid not null references organization (id) on delete cascade,
        provider text not null check (provider in ('S3')),
        bucket text not null,
        region text not null,
        endpoint text,
        force_path_style boolean not null,
        sealed_credentials text not null,
        connected_by_id uuid references app_user (id) on delete set null,
        connected_at timestamptz not null,
        primary key (organization_id, provider)
      );
      alter table job drop constraint if exists job_kind_check;
    `);
  }
}
