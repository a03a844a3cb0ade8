import { Migration } from '@mikro-orm/migrations';

// What an UPLOAD item accepts (types, sizes, counts, a naming pattern), on request items and the
// template items they are made from: one JSON object each, read and written whole (UploadRules).
export class Migration20261203000000_upload_rules extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table request_item add column upload_rules jsonb');
    this.addSql('alter table template_item add column upload_rules jsonb');
  }
}
