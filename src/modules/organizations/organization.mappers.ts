// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { BrandingView, OrganizationSettingsView } from './organization.service';

export type OrganizationSettingsMapper = OrganizationSettingsView;
export type BrandingMapper = BrandingView;
export type ConfirmationPageMapper = OrganizationSettingsView;
