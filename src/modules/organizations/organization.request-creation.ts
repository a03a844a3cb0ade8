import type { RequestCreationPart } from '../requests/request.creation';
import { effectiveAuth } from '../recipients/recipient-link';
import { settingsOf } from './organization.service';

/** A new request's defaults from its organization, and the sign-in methods the organization allows. */
export const requestSettingsPart: RequestCreationPart = {
  field: 'recipients',
  async prepare(ctx, check, input) {
    const settings = await settingsOf(ctx.db, ctx.viewer.organizationId, ctx.settings.caches);
    (input.recipients ?? []).forEach((recipient, i) => {
      // Checked as the recipient will sign in: UNSET resolves against the request's MFA.
      const method = effectiveAuth(recipient.authMethod ?? 'UNSET', input.mfaEnabled ?? false, recipient.email ?? null);
      if (method !== 'UNSET' && !(settings.allowedAuthMethods as string[]).includes(method)) {
        check.add(
          ['recipients', i, 'authMethod'],
          `Your organization does not allow ${method}; allowed: ${settings.allowedAuthMethods.join(', ')}`,
          'INVALID',
        );
      }
    });
    return {
      organizationDefaults: {
        expirationDays: settings.defaultExpirationDays ?? null,
        reminders: settings.defaultReminders,
        language: settings.defaultLanguage,
        requireCompleteSubmission: settings.requireCompleteSubmission,
      },
    };
  },
};
