// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { OrganizationSettingsView } from './organization.service';

export type OrganizationSettingsMapper = OrganizationSettingsView;
export type BrandingMapper = OrganizationSettingsView;
export type ConfirmationPageMapper = OrganizationSettingsView;
