import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { Row } from '../../kernel/db/db';
import type { AuthMethod } from '../recipients/recipient.enums';
import { LANGUAGES } from '../requests/request.enums';

/** A way a recipient signs in that an organization may allow (UNSET resolves to one of them). */
export type SignInMethod = Exclude<AuthMethod, 'UNSET'>;

/** An organization's settings, branding and confirmation page, with its logo. */
export const OrganizationSettings = defineEntity({
  name: 'OrganizationSettings',
  tableName: 'organization_settings',
  properties: {
    organizationId: p.uuid().primary(),
    defaultExpirationDays: p.integer().nullable(),
    defaultReminders: p.integer(),
    defaultLanguage: p.enum([...LANGUAGES]),
    allowedAuthMethods: p.array<SignInMethod>(),
    requireCompleteSubmission: p.boolean(),
    retentionDays: p.integer().nullable(),
    primaryColor: p.text().nullable(),
    senderName: p.text().nullable(),
    supportEmail: p.text().nullable(),
    /** Read by the logo route alone (lazy: no other read of the row carries the bytes). */
    logo: p.blob().lazy().nullable(),
    logoType: p.text().nullable(),
    logoSha256: p.text().nullable(),
    confirmationEnabled: p.boolean(),
    confirmationMessage: p.text().nullable(),
    updatedAt: p.datetime(),
  },
});
export type OrganizationSettings = InferEntity<typeof OrganizationSettings>;
export type OrganizationSettingsRow = Row<OrganizationSettings>;
