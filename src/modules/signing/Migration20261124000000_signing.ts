import { Migration } from '@mikro-orm/migrations';

// One signing certificate per organization, made on its first signature. The private key never leaves
// the sealed PKCS#12 (sealed with the server secret): a copy of the database alone cannot sign.
export class Migration20261124000000_signing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization_certificate (
        organization_id uuid primary key references organization (id) on delete cascade,
        certificate_pem text not null,
        sealed_p12 text not null,
        created_at timestamptz not null
      );
    `);
  }
}
