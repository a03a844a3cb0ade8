import { Migration } from '@mikro-orm/migrations';

// What an SMS vendor says of a message after taking it: its id (its delivery reports name it) and the last status it
// reported (`delivered`, `undelivered`, ...).
export class Migration20261202000000_sms_delivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table notification add column provider_message_id text, add column delivery_status text;
    `);
  }
}
