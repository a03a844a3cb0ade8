import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261124000000_signing } from './Migration20261124000000_signing';
import { OrganizationCertificate } from './signing.entities';

// E-signing has no API of its own: the recipient portal calls signContract (signing.service.ts).
export const signingModule: ModuleDescriptor = {
  name: 'signing',
  entities: [OrganizationCertificate],
  migrations: [{ name: 'Migration20261124000000_signing', class: Migration20261124000000_signing }],
};
