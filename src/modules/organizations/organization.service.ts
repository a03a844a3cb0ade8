import { createHash } from 'node:crypto';
import type { BrandingUpdateInput, OrganizationSettingsUpdateInput } from '../../generated/resolvers-types';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { Reader, Tx, Values } from '../../kernel/db/db';
import { extensionPoint } from '../../kernel/module';
import type { SharedCaches } from '../../kernel/db/shared-cache';
import type { IncomingFile } from '../../kernel/http/files';
import { InputCheck } from '../../kernel/validation/input-check';
import { isAdmin } from '../identity/viewer';
import { MAX_REMINDERS, MIN_REMINDERS } from '../requests/request.limits';
import { DEFAULT_LANGUAGE, DEFAULT_REMINDERS } from '../requests/request.enums';
import { OrganizationSettings, type OrganizationSettingsRow, type SignInMethod } from './organization.entities';
import { MAX_CONFIRMATION_MESSAGE_LENGTH, MAX_SENDER_NAME_LENGTH, MAX_SETTINGS_DAYS } from './organization.limits';
import { readLogo } from './organization.logo';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

export const SIGN_IN_METHODS: readonly SignInMethod[] = ['EMAIL', 'SMS', 'SECURITY_QUESTION', 'NONE'];

/** What an organization that never changed anything has. */
export const DEFAULT_SETTINGS: Omit<OrganizationSettingsView, 'organizationId'> = {
  defaultExpirationDays: null,
  defaultReminders: DEFAULT_REMINDERS,
  defaultLanguage: DEFAULT_LANGUAGE,
  allowedAuthMethods: [...SIGN_IN_METHODS],
  requireCompleteSubmission: false,
  retentionDays: null,
  primaryColor: null,
  senderName: null,
  supportEmail: null,
  logoType: null,
  logoSha256: null,
  confirmationEnabled: false,
  confirmationMessage: null,
};

export type OrganizationSettingsView = Omit<OrganizationSettingsRow, 'updatedAt' | 'logo'>;

// The columns of the view: not `updated_at`, nor the logo's bytes, which only the logo route reads (`logoBytes`).
const VIEW_COLUMNS = `organization_id, default_expiration_days, default_reminders, default_language, allowed_auth_methods,
  require_complete_submission, retention_days, primary_color, sender_name, support_email, logo_type, logo_sha256,
  confirmation_enabled, confirmation_message`;

/**
 * An organization's settings, its defaults when it has no row. With `caches` (reads outside a
 * transaction that changes them), from this instance's cache of organization_settings, which any
 * change to the table on any instance empties.
 */
export async function settingsOf(
  db: Reader,
  organizationId: string,
  caches?: SharedCaches,
): Promise<OrganizationSettingsView> {
  const load = async (): Promise<OrganizationSettingsView> => {
    const [row] = await db.records(
      OrganizationSettings,
      `select ${VIEW_COLUMNS} from organization_settings where organization_id = ?`,
      [organizationId],
    );
    if (!row) return { organizationId, ...DEFAULT_SETTINGS };
    // A plain copy of the view's fields.
    const fields = Object.keys(DEFAULT_SETTINGS) as (keyof typeof DEFAULT_SETTINGS)[];
    return Object.fromEntries([
      ['organizationId', organizationId],
      ...fields.map((field) => [field, row[field]]),
    ]) as OrganizationSettingsView;
  };
  return caches ? caches.of<OrganizationSettingsView>('organization_settings').get(organizationId, load) : load();
}

/** The public URL of a logo: it names the content, so it may be cached for as long as it exists. */
export const logoUrl = (publicUrl: string, organizationId: string, sha256: string | null): string | null =>
  sha256 ? `${publicUrl}/branding/${organizationId}/logo/${sha256.slice(0, 16)}` : null;

/** Branding as the portal and mails use it. */
export type BrandingView = {
  primaryColor: string | null;
  senderName: string | null;
  supportEmail: string | null;
  logoUrl: string | null;
};

/** What branding is made of, as stored. */
export type BrandingSource = Pick<
  OrganizationSettingsView,
  'organizationId' | 'primaryColor' | 'senderName' | 'supportEmail' | 'logoSha256'
>;

export const brandingView = (publicUrl: string, settings: BrandingSource): BrandingView => ({
  primaryColor: settings.primaryColor ?? null,
  senderName: settings.senderName ?? null,
  supportEmail: settings.supportEmail ?? null,
  logoUrl: logoUrl(publicUrl, settings.organizationId, settings.logoSha256 ?? null),
});

/**
 * A statement's column with the branding of the organization `organizationId` (an SQL expression) as
 * JSON, null without a row: for reads that carry it along (the mail a notification job sends).
 */
export const brandingColumn = (organizationId: string): string =>
  `(select json_build_object('organizationId', s.organization_id, 'primaryColor', s.primary_color, 'senderName', s.sender_name,
           'supportEmail', s.support_email, 'logoSha256', s.logo_sha256)
      from organization_settings s where s.organization_id = ${organizationId})`;

/** Work that follows `retention_days` (the timed work plans when closed requests lose their documents). */
export type RetentionChange = (
  tx: Tx,
  change: { organizationId: string; retentionDays: number | null; now: Date },
) => Promise<void>;

/** Called in the settings' transaction when `retention_days` changes. */
export const retentionChanges = extensionPoint<RetentionChange>('retention days changed');

/** The organization a mutation names: the caller's own, else not found; and the caller an ADMIN. */
function requireOwnOrganization(ctx: Ctx, id: string): void {
  if (id !== ctx.viewer.organizationId) throw AppError.notFound('Organization');
  if (!isAdmin(ctx.viewer)) throw AppError.forbidden("Only an ADMIN may change the organization's settings");
}

type SettingsChanges = Values<OrganizationSettings>;

// A setting's column is its property's name in snake case (as the entity maps it).
const column = (property: string) => property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Writes the changes `change` answers (and `updatedAt`) to the organization's row, created with the
 * defaults first if it has none, locked.
 */
async function changeSettings(
  ctx: Ctx,
  id: string,
  change: (settings: OrganizationSettingsRow, tx: Tx) => Promise<SettingsChanges> | SettingsChanges,
): Promise<OrganizationSettingsRow> {
  requireOwnOrganization(ctx, id);
  const changed = await ctx.db.transaction(async (tx) => {
    // Two first changes at once both insert: one row wins, the other change waits on its lock.
    await tx.execute(
      `insert into organization_settings (organization_id, default_reminders, default_language, allowed_auth_methods, require_complete_submission, confirmation_enabled, updated_at)
       values (?, ?, ?, ?::text[], false, false, now()) on conflict do nothing`,
      [id, DEFAULT_SETTINGS.defaultReminders, DEFAULT_SETTINGS.defaultLanguage, DEFAULT_SETTINGS.allowedAuthMethods],
    );
    const [settings] = await tx.records(
      OrganizationSettings,
      `select ${VIEW_COLUMNS}, updated_at from organization_settings where organization_id = ? for update`,
      [id],
    );
    const changes = Object.entries({ ...(await change(settings, tx)), updatedAt: new Date() }).filter(
      ([, value]) => value !== undefined,
    );
    const [written] = await tx.records(
      OrganizationSettings,
      `update organization_settings set ${changes.map(([property]) => `${column(property)} = ?`).join(', ')}
        where organization_id = ? returning ${VIEW_COLUMNS}, updated_at`,
      [...changes.map(([, value]) => value), id],
    );
    return written;
  });
  // Every instance empties its cache when the commit's notification arrives; this one at once.
  ctx.settings.caches.changed('organization_settings');
  return changed;
}

export async function updateSettings(
  ctx: Ctx,
  id: string,
  input: OrganizationSettingsUpdateInput,
): Promise<OrganizationSettingsRow> {
  const check = new InputCheck();
  for (const key of [
    'defaultReminders',
    'defaultLanguage',
    'allowedAuthMethods',
    'requireCompleteSubmission',
  ] as const) {
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  }
  check.int(['defaultExpirationDays'], input.defaultExpirationDays, { min: 1, max: MAX_SETTINGS_DAYS });
  check.int(['retentionDays'], input.retentionDays, { min: 1, max: MAX_SETTINGS_DAYS });
  check.int(['defaultReminders'], input.defaultReminders, { min: MIN_REMINDERS, max: MAX_REMINDERS });
  const methods = input.allowedAuthMethods;
  if (methods) {
    if (methods.length === 0) check.add(['allowedAuthMethods'], 'Allow at least one way to sign in', 'TOO_SHORT');
    methods.forEach((method, i) => {
      if (!(SIGN_IN_METHODS as string[]).includes(method))
        check.add(
          ['allowedAuthMethods', i],
          'UNSET is not a way to sign in: it resolves to NONE, EMAIL or SMS',
          'INVALID',
        );
    });
  }
  check.done();
  return changeSettings(ctx, id, async (settings, tx) => {
    const changes: SettingsChanges = {};
    if (input.defaultExpirationDays !== undefined) changes.defaultExpirationDays = input.defaultExpirationDays;
    if (input.retentionDays !== undefined && input.retentionDays !== settings.retentionDays) {
      changes.retentionDays = input.retentionDays;
      for (const change of retentionChanges.values())
        await change(tx, { organizationId: id, retentionDays: input.retentionDays, now: ctx.settings.clock.now() });
    }
    if (input.defaultReminders != null) changes.defaultReminders = input.defaultReminders;
    if (input.defaultLanguage != null) changes.defaultLanguage = input.defaultLanguage;
    if (methods) changes.allowedAuthMethods = [...new Set(methods as SignInMethod[])];
    if (input.requireCompleteSubmission != null) changes.requireCompleteSubmission = input.requireCompleteSubmission;
    return changes;
  });
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

export async function updateBranding(
  ctx: Ctx,
  id: string,
  input: BrandingUpdateInput,
): Promise<OrganizationSettingsRow> {
  const check = new InputCheck();
  if (input.primaryColor != null && !COLOR.test(input.primaryColor))
    check.add(['primaryColor'], 'Must be a colour as #RRGGBB', 'INVALID');
  check.text(['senderName'], input.senderName, { min: 1, max: MAX_SENDER_NAME_LENGTH });
  check.email(['supportEmail'], input.supportEmail);
  check.done();
  return changeSettings(ctx, id, async (_settings, tx) => {
    const changes: SettingsChanges = {};
    if (input.primaryColor !== undefined) changes.primaryColor = input.primaryColor?.toLowerCase() ?? null;
    if (input.senderName !== undefined) changes.senderName = input.senderName?.trim() ?? null;
    if (input.supportEmail !== undefined) changes.supportEmail = input.supportEmail;
    if (input.removeLogo) {
      changes.logoType = null;
      changes.logoSha256 = null;
      await setLogoBytes(tx, id, null);
    }
    return changes;
  });
}

export async function setConfirmationPage(
  ctx: Ctx,
  id: string,
  message: string | null,
): Promise<OrganizationSettingsRow> {
  if (message !== null)
    new InputCheck()
      .text(['message'], message, { min: 1, max: MAX_CONFIRMATION_MESSAGE_LENGTH, required: true })
      .done();
  return changeSettings(ctx, id, () => ({
    confirmationEnabled: message !== null,
    ...(message !== null ? { confirmationMessage: message.trim() } : {}),
  }));
}

/** Stores an uploaded logo (PNG, JPEG, or SVG made safe) in place of the organization's. */
export async function uploadLogo(ctx: Ctx, id: string, receive: () => Promise<IncomingFile>): Promise<void> {
  // Refused before a byte of the body is read.
  requireOwnOrganization(ctx, id);
  const logo = await readLogo(await receive());
  const sha256 = createHash('sha256').update(logo.bytes).digest('hex');
  await changeSettings(ctx, id, async (_settings, tx) => {
    await setLogoBytes(tx, id, logo.bytes);
    return { logoType: logo.type, logoSha256: sha256 };
  });
}

// The bytes are written by their own statement: no other statement reads or writes them.
const setLogoBytes = (tx: Tx, id: string, bytes: Buffer | null) =>
  tx.execute('update organization_settings set logo = ? where organization_id = ?', [bytes, id]);

/** A logo's bytes by the organization and the hash its URL names; null once it was replaced. */
export async function logoBytes(
  db: Reader,
  organizationId: string,
  hash: string,
): Promise<{ type: string; bytes: Buffer } | null> {
  const [row] = await db.rows<{ logo_type: string; logo: Buffer }>(
    'select logo_type, logo from organization_settings where organization_id = ? and left(logo_sha256, 16) = ? and logo is not null',
    [organizationId, hash],
  );
  return row ? { type: row.logo_type, bytes: row.logo } : null;
}
