import { Type } from '@sinclair/typebox';
import {
  BrandingGetDocument,
  BrandingUpdateDocument,
  ConfirmationPageDisableDocument,
  ConfirmationPageEnableDocument,
  OrganizationSettingsGetDocument,
  OrganizationSettingsUpdateDocument,
} from '../../generated/operations';
import { receiveFile } from '../../kernel/http/files';
import { fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization, inputFromBody } from '../../kernel/rest/mapping';
import { Body, Nullable, StringEnum, Text, Uuid, withErrors } from '../../kernel/rest/schemas';
import { languageFromRest, LanguageSchema } from '../requests/request.rest-shapes';
import { MAX_REMINDERS, MIN_REMINDERS } from '../requests/request.limits';
import {
  MAX_CONFIRMATION_MESSAGE_LENGTH,
  MAX_LOGO_BYTES,
  MAX_SENDER_NAME_LENGTH,
  MAX_SETTINGS_DAYS,
} from './organization.limits';
import {
  BrandingBody,
  ConfirmationPageBody,
  restBranding,
  restConfirmationPage,
  restSettings,
  SettingsBody,
} from './organization.rest-shapes';
import { SIGN_IN_METHODS, uploadLogo } from './organization.service';

const tags = ['Organization settings'];
const OrgParams = Type.Object({ org_id: Uuid() });
const Days = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: MAX_SETTINGS_DAYS,
    description: `1 to ${MAX_SETTINGS_DAYS} days, or null for none`,
  }),
);

const SettingsUpdateBody = Body({
  default_expiration_days: Days,
  default_reminders: Type.Integer({ minimum: MIN_REMINDERS, maximum: MAX_REMINDERS }),
  default_language: LanguageSchema,
  allowed_auth_methods: Type.Array(StringEnum(SIGN_IN_METHODS, 'EMAIL, SMS, SECURITY_QUESTION or NONE'), {
    minItems: 1,
    maxItems: SIGN_IN_METHODS.length,
    uniqueItems: true,
  }),
  require_complete_submission: Type.Boolean(),
  retention_days: Days,
});

const BrandingUpdateBody = Body({
  primary_color: Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'a colour as #RRGGBB' })),
  sender_name: Nullable(Text(MAX_SENDER_NAME_LENGTH, { minLength: 1 })),
  support_email: Nullable(Type.String({ description: 'an email address' })),
  logo_url: Type.Null({ description: 'null removes the logo (upload one with POST .../branding/logo)' }),
});

const ConfirmationBody = Body({ message: Text(MAX_CONFIRMATION_MESSAGE_LENGTH, { minLength: 1 }) }, ['message']);

export const organizationRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/settings',
    summary: "Get the organization's settings (defaults of new requests, retention)",
    tags,
    schema: { params: OrgParams, response: withErrors({ 200: SettingsBody }) },
    operation: OrganizationSettingsGetDocument,
    variables: ({ params }) => ({ organizationId: params.org_id }),
    result: (data) => ({ body: restSettings(foundOrganization(data.node, 'settings').settings) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/organizations/:org_id/settings',
    summary: "Change the organization's settings (ADMIN)",
    tags,
    schema: {
      params: OrgParams,
      body: SettingsUpdateBody,
      response: withErrors({ 200: SettingsBody }, [403, 404, 422]),
    },
    operation: OrganizationSettingsUpdateDocument,
    variables: ({ params, body }) => ({
      id: params.org_id,
      input: inputFromBody(
        body ?? {},
        [
          'default_expiration_days',
          'default_reminders',
          'default_language',
          'allowed_auth_methods',
          'require_complete_submission',
          'retention_days',
        ],
        { default_language: languageFromRest },
      ),
    }),
    result: (data) => ({ body: restSettings(fromPayload(data.organizationSettingsUpdate, 'settings')) }),
  }),
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/branding',
    summary: "Get the organization's branding (logo, colour, sender name, support address)",
    tags,
    schema: { params: OrgParams, response: withErrors({ 200: BrandingBody }) },
    operation: BrandingGetDocument,
    variables: ({ params }) => ({ organizationId: params.org_id }),
    result: (data) => ({ body: restBranding(foundOrganization(data.node, 'branding').branding) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/organizations/:org_id/branding',
    summary: "Change the organization's branding (ADMIN)",
    tags,
    schema: {
      params: OrgParams,
      body: BrandingUpdateBody,
      response: withErrors({ 200: BrandingBody }, [403, 404, 422]),
    },
    operation: BrandingUpdateDocument,
    variables: ({ params, body }) => ({
      id: params.org_id,
      input: {
        ...inputFromBody(body ?? {}, ['primary_color', 'sender_name', 'support_email']),
        ...(body && 'logo_url' in body ? { removeLogo: true } : {}),
      },
    }),
    result: (data) => ({ body: restBranding(fromPayload(data.brandingUpdate, 'branding')) }),
  }),
  restRow({
    method: 'POST',
    url: '/organizations/:org_id/branding/logo',
    summary: `Upload the organization's logo: PNG, JPEG or SVG (sanitised), at most ${MAX_LOGO_BYTES / 1024} KiB (multipart/form-data, part \`file\`; ADMIN)`,
    tags,
    schema: { params: OrgParams, response: withErrors({ 200: BrandingBody }, [403, 404, 413, 415, 422]) },
    receive: async (ctx, { params }, request) => {
      await uploadLogo(ctx, params.org_id, () => receiveFile(request, { raw: false, maxBytes: MAX_LOGO_BYTES }));
      return { organizationId: params.org_id };
    },
    operation: BrandingGetDocument,
    result: (data) => ({ body: restBranding(foundOrganization(data.node, 'branding').branding) }),
  }),
  restRow({
    method: 'POST',
    url: '/organizations/:org_id/confirmation-page/enable',
    summary: 'Show recipients a message after they submit or sign (ADMIN)',
    tags,
    schema: {
      params: OrgParams,
      body: ConfirmationBody,
      response: withErrors({ 200: ConfirmationPageBody }, [403, 404, 422]),
    },
    operation: ConfirmationPageEnableDocument,
    variables: ({ params, body }) => ({ id: params.org_id, input: { message: body.message } }),
    result: (data) => ({ body: restConfirmationPage(fromPayload(data.confirmationPageEnable, 'confirmationPage')) }),
  }),
  restRow({
    method: 'POST',
    url: '/organizations/:org_id/confirmation-page/disable',
    summary: 'Stop showing the confirmation page; its message is kept (ADMIN)',
    tags,
    schema: { params: OrgParams, response: withErrors({ 200: ConfirmationPageBody }, [403, 404]) },
    operation: ConfirmationPageDisableDocument,
    variables: ({ params }) => ({ id: params.org_id }),
    result: (data) => ({ body: restConfirmationPage(fromPayload(data.confirmationPageDisable, 'confirmationPage')) }),
  }),
];
