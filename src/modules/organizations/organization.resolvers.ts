import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { brandingView, setConfirmationPage, updateBranding, updateSettings } from './organization.service';

export const organizationResolvers: Resolvers = {
  Organization: {
    settings: (organization, _args, ctx) => ctx.loaders.settingsByOrganization.load(organization.id),
    branding: async (organization, _args, ctx) =>
      brandingView(ctx.settings.publicUrl, await ctx.loaders.settingsByOrganization.load(organization.id)),
    confirmationPage: (organization, _args, ctx) => ctx.loaders.settingsByOrganization.load(organization.id),
  },
  ConfirmationPage: {
    enabled: (settings) => settings.confirmationEnabled,
    message: (settings) => settings.confirmationMessage ?? null,
  },
  Mutation: {
    organizationSettingsUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ settings: await updateSettings(ctx, id, input) })),
    brandingUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ branding: brandingView(ctx.settings.publicUrl, await updateBranding(ctx, id, input)) })),
    confirmationPageEnable: (_root, { id, input }, ctx) =>
      payload(async () => ({ confirmationPage: await setConfirmationPage(ctx, id, input.message) })),
    confirmationPageDisable: (_root, { id }, ctx) =>
      payload(async () => ({ confirmationPage: await setConfirmationPage(ctx, id, null) })),
  },
};
