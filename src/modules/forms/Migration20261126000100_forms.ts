import { Migration } from '@mikro-orm/migrations';

// Forms, and the form part of request items. An item keeps a copy of its form (`form`, with the item's
// own defaults) and the recipient's answers beside it, so a form can be deleted once no open request
// uses it (`form_id`, indexed for that check) without touching the items that were made from it.
// Template items already held their form part as given (a map of fields): it becomes the same copy,
// its fields a list in the map's order.
export class Migration20261126000100_forms extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table form (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        owner_id uuid not null references app_user (id),
        name varchar(255) not null,
        fields jsonb not null,
        allow_file_upload boolean not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index form_organization_idx on form (organization_id, created_at desc, id);

      alter table request_item add column form_id uuid, add column form jsonb, add column form_answers jsonb;
      create index request_item_form_idx on request_item (form_id) where form_id is not null;

      update template_item t set form = jsonb_build_object(
          'id', t.form->'id',
          'name', 'Form',
          'allowFileUpload', coalesce(t.form->'allowFileUpload', 'false'::jsonb),
          'fields', coalesce((select jsonb_agg(jsonb_build_object('name', f.key,
                     'defaultValue', f.value->'defaultValue', 'readOnly', coalesce(f.value->'readOnly', 'false'::jsonb)))
                from jsonb_each(t.form->'fields') f), '[]'::jsonb))
        where t.form is not null and jsonb_typeof(t.form->'fields') = 'object';
    `);
  }
}
