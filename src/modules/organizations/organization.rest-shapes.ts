import { Type } from '@sinclair/typebox';
import type {
  RestBrandingFragment,
  RestConfirmationPageFragment,
  RestOrganizationSettingsFragment,
} from '../../generated/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { languageToRest } from '../requests/request.rest-shapes';

// The REST shapes of an organization's settings, branding and confirmation page (API-DECISIONS,
// "Bodies of the named operations").

export const { schema: SettingsBody, map: restSettings } = restShape(
  (field: Field<RestOrganizationSettingsFragment>) => ({
    default_expiration_days: Nullable(Type.Integer()),
    default_reminders: Type.Integer(),
    default_language: field(Type.String(), (settings) => languageToRest(settings.defaultLanguage)),
    allowed_auth_methods: Type.Array(Type.String()),
    require_complete_submission: Type.Boolean(),
    retention_days: Nullable(Type.Integer()),
  }),
);

export const { schema: BrandingBody, map: restBranding } = restShape((_field: Field<RestBrandingFragment>) => ({
  primary_color: Nullable(Type.String()),
  sender_name: Nullable(Type.String()),
  support_email: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
}));

export const { schema: ConfirmationPageBody, map: restConfirmationPage } = restShape(
  (_field: Field<RestConfirmationPageFragment>) => ({
    enabled: Type.Boolean(),
    message: Nullable(Type.String()),
  }),
);
