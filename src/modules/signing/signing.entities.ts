import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt } from '../../kernel/db/entity-props';
import { Organization } from '../identity/identity.entities';

/** The organization's self-signed signing certificate, with its key in a sealed PKCS#12. */
export const OrganizationCertificate = defineEntity({
  name: 'OrganizationCertificate',
  tableName: 'organization_certificate',
  properties: {
    organization: () => p.manyToOne(Organization).ref().primary(),
    certificatePem: p.text(),
    /** `seal(secret, 'signing-certificate', JSON {p12: base64, passphrase})`. */
    sealedP12: p.text(),
    createdAt: createdAt(),
  },
});
export type OrganizationCertificate = InferEntity<typeof OrganizationCertificate>;
