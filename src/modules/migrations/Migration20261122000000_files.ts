import { Migration } from '@mikro-orm/migrations';

// Files: the stored bytes' metadata (stored_file) and the three records that refer to it. A library
// attachment referenced by a request is copied as a row, not as bytes, so several rows may share one
// stored_file; its object is deleted when the last of them goes (see modules/files/file.service.ts).
export class Migration20261122000000_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table stored_file (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        storage_key varchar(200) not null unique,
        name varchar(255) not null,
        size integer not null check (size >= 0),
        sha256 char(64) not null,
        mime_type varchar(255) not null,
        claimed_mime_type varchar(255),
        created_by_id uuid references app_user (id) on delete set null,
        created_at timestamptz not null
      );

      create table attachment (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id) on delete cascade,
        file_id uuid not null references stored_file (id),
        request_id uuid references request (id) on delete cascade,
        item_id uuid references request_item (id) on delete cascade,
        position integer not null,
        created_at timestamptz not null,
        check (item_id is null or request_id is not null)
      );
      create index attachment_library_idx on attachment (owner_id, created_at, id) where request_id is null;
      create index attachment_request_idx on attachment (request_id, position) where request_id is not null;
      create index attachment_item_idx on attachment (item_id, position) where item_id is not null;
      create index attachment_file_idx on attachment (file_id);

      create table document (
        id uuid primary key,
        request_id uuid not null references request (id) on delete cascade,
        item_id uuid not null references request_item (id) on delete cascade,
        file_id uuid not null references stored_file (id),
        created_at timestamptz not null
      );
      create index document_request_idx on document (request_id, created_at, id);
      create index document_item_idx on document (item_id, created_at, id);
      create index document_file_idx on document (file_id);

      create table contract (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id),
        file_id uuid not null references stored_file (id),
        annotations jsonb not null,
        fields jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index contract_organization_idx on contract (organization_id, created_at, id);
      create index contract_file_idx on contract (file_id);

      -- Before this migration no contract existed, so no stored contractId can name one.
      update request_item set contract_id = null where contract_id is not null;
      update template_item set contract_id = null where contract_id is not null;
      alter table request_item add constraint request_item_contract_fk foreign key (contract_id) references contract (id) on delete set null;
      alter table template_item add constraint template_item_contract_fk foreign key (contract_id) references contract (id) on delete set null;
      create index request_item_contract_idx on request_item (contract_id) where contract_id is not null;
      create index template_item_contract_idx on template_item (contract_id) where contract_id is not null;
    `);
  }
}
