import { Migration } from '@mikro-orm/migrations';

// Which recipient submitted a document, so the portal shows each recipient what it sent and only it
// may take that back (null: added by the owner's API, or before recipients could upload).
export class Migration20261124000000_document_recipient extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table document add column recipient_id uuid references recipient (id) on delete set null');
  }
}
