import type { EntityName } from '@mikro-orm/core';
import { isUniqueViolation, type Reader, type Row, type Values } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';
import {
  ApiKey,
  Organization,
  Team,
  User,
  type ApiKeyRow,
  type OrganizationRow,
  type TeamRow,
  type UserRole,
  type UserRow,
} from './identity.entities';
import { isAdmin, type Viewer } from './viewer';
import { MAX_EMAIL, MAX_PERSON_NAME } from '../../kernel/limits';
import { MAX_API_KEY_NAME, MAX_ORGANIZATION_NAME, MAX_TEAM_NAME } from './identity.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

export const DEFAULT_ADMIN_EMAIL = 'admin@gather.local';

/** Emails are unique without regard to case. */
export async function findUserByEmail(db: Reader, email: string): Promise<UserRow | null> {
  const [user] = await db.records(User, 'select * from app_user where lower(email) = ? limit 1', [
    email.trim().toLowerCase(),
  ]);
  return user ?? null;
}

function requireAdmin(viewer: Viewer): void {
  if (!isAdmin(viewer)) throw AppError.forbidden('Only an ADMIN of the organization may do this');
}

/**
 * A record of the caller's organization by id, or NOT_FOUND (malformed ids included): `sql` selects it
 * by the id (its first parameter) and `params`.
 */
async function findInOrganization<E extends object>(
  db: Reader,
  entity: EntityName<E>,
  id: string,
  sql: string,
  params: unknown[],
  resource: string,
): Promise<Row<E>> {
  const [record] = isUuid(id) ? await db.records(entity, sql, [id, ...params]) : [];
  if (!record) throw AppError.notFound(resource);
  return record;
}

export async function getUser(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<UserRow | null> {
  if (!isUuid(id)) return null;
  const [user] = await ctx.db.records(User, 'select * from app_user where id = ? and organization_id = ?', [
    id,
    ctx.viewer.organizationId,
  ]);
  return user ?? null;
}

export async function getTeam(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<TeamRow | null> {
  if (!isUuid(id)) return null;
  const [team] = await ctx.db.records(Team, 'select * from team where id = ? and organization_id = ?', [
    id,
    ctx.viewer.organizationId,
  ]);
  return team ?? null;
}

/** An API key of the organization: an ADMIN sees all, a USER its own. */
export async function getApiKey(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ApiKeyRow | null> {
  if (!isUuid(id)) return null;
  const [apiKey] = await ctx.db.records(
    ApiKey,
    'select k.* from api_key k join app_user u on u.id = k.user_id where k.id = ? and u.organization_id = ?',
    [id, ctx.viewer.organizationId],
  );
  return apiKey && (isAdmin(ctx.viewer) || apiKey.user.id === ctx.viewer.userId) ? apiKey : null;
}

export async function getOrganization(ctx: Pick<Ctx, 'db' | 'viewer'>): Promise<OrganizationRow> {
  const id = ctx.viewer.organizationId;
  const [organization] = await ctx.db.records(Organization, 'select * from organization where id = ?', [id]);
  if (!organization) throw new Error(`Organization ${id} not found`);
  return organization;
}

export async function listUsers(ctx: Pick<Ctx, 'db' | 'viewer'>, args: PageArgs): Promise<Connection<UserRow>> {
  return paginate(
    {
      db: ctx.db,
      entity: User,
      sql: 'select u.* from app_user u where u.organization_id = ?',
      params: [ctx.viewer.organizationId],
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'ASC' },
  );
}

/**
 * The organization's teams by name, through the operation's loader: once per operation, however many times a query
 * reaches them.
 */
export function listTeams(ctx: Pick<GraphQLContext, 'viewer' | 'loaders'>): Promise<TeamRow[]> {
  return ctx.loaders.teamsByOrganization.load(ctx.viewer.organizationId);
}

function checkPerson(
  check: InputCheck,
  input: { email?: string | null; firstName?: string | null; lastName?: string | null },
) {
  check
    .email(['email'], input.email)
    .text(['firstName'], input.firstName, { max: MAX_PERSON_NAME })
    .text(['lastName'], input.lastName, { max: MAX_PERSON_NAME });
}

/** Creates an organization with its first ADMIN and that admin's first API key (CLI and first start). */
export async function createOrganization(
  db: Reader,
  input: { name: string; adminEmail: string; adminFirstName?: string; adminLastName?: string; apiKey?: string },
): Promise<{ organization: OrganizationRow; user: UserRow; apiKey: string }> {
  const check = new InputCheck().text(['name'], input.name, { max: MAX_ORGANIZATION_NAME, min: 1, required: true });
  check.email(['adminEmail'], input.adminEmail);
  check.done();
  return db.transaction(async (tx) => {
    if (await findUserByEmail(tx, input.adminEmail)) {
      throw AppError.validation([
        { field: ['adminEmail'], message: `A user with email ${input.adminEmail} already exists`, code: 'TAKEN' },
      ]);
    }
    const [organization] = await tx.insert(Organization, [{ name: input.name }]);
    const [user] = await tx.insert(User, [
      {
        organization: organization.id,
        email: input.adminEmail,
        firstName: input.adminFirstName ?? null,
        lastName: input.adminLastName ?? null,
        role: 'ADMIN',
      },
    ]);
    const apiKey = input.apiKey ?? generateApiKey();
    await tx.insert(ApiKey, [
      {
        organization: organization.id,
        user: user.id,
        name: 'initial',
        prefix: apiKeyPrefix(apiKey),
        keyHash: hashApiKey(apiKey),
      },
    ]);
    return { organization, user, apiKey };
  });
}

/**
 * On an empty database, creates the default organization and its admin (with GATHER_ADMIN_API_KEY
 * when set). Returns the key when it was created here, so the caller can show it once.
 */
export async function bootstrapFirstAdmin(
  db: Reader,
  options: { apiKey?: string; email?: string },
): Promise<{ organizationId: string; userId: string; apiKey: string } | null> {
  const [{ n }] = await db.rows<{ n: number }>('select count(*)::int as n from organization');
  if (n > 0) return null;
  const { organization, user, apiKey } = await createOrganization(db, {
    name: 'Default organization',
    adminEmail: options.email ?? DEFAULT_ADMIN_EMAIL,
    apiKey: options.apiKey,
  });
  return { organizationId: organization.id, userId: user.id, apiKey };
}

/** Adds a key for a user found by email (CLI). */
export async function createApiKeyForEmail(
  db: Reader,
  email: string,
  name?: string,
): Promise<{ user: UserRow; apiKey: string }> {
  return db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) throw AppError.notFound('User');
    const apiKey = generateApiKey();
    await tx.insert(ApiKey, [
      {
        organization: user.organization,
        user: user.id,
        name: name ?? null,
        prefix: apiKeyPrefix(apiKey),
        keyHash: hashApiKey(apiKey),
      },
    ]);
    return { user, apiKey };
  });
}

export async function createTeam(ctx: Ctx, input: { name: string }): Promise<TeamRow> {
  requireAdmin(ctx.viewer);
  new InputCheck().text(['name'], input.name, { max: MAX_TEAM_NAME, min: 1, required: true }).done();
  const [team] = await ctx.db.transaction((tx) =>
    tx.insert(Team, [{ organization: ctx.viewer.organizationId, name: input.name.trim() }]),
  );
  return team;
}

async function checkTeam(ctx: Ctx, check: InputCheck, teamId: string | null | undefined): Promise<TeamRow | null> {
  if (teamId == null) return null;
  const team = await getTeam(ctx, teamId);
  if (!team) check.add(['teamId'], 'Names no team of your organization', 'NOT_FOUND');
  return team;
}

export async function createUser(
  ctx: Ctx,
  input: {
    email: string;
    firstName?: string | null;
    lastName?: string | null;
    role?: UserRole | null;
    teamId?: string | null;
  },
): Promise<UserRow> {
  requireAdmin(ctx.viewer);
  const check = new InputCheck();
  check.text(['email'], input.email, { max: MAX_EMAIL, required: true });
  checkPerson(check, input);
  const team = await checkTeam(ctx, check, input.teamId);
  check.done();
  try {
    const [user] = await ctx.db.transaction((tx) =>
      tx.insert(User, [
        {
          organization: ctx.viewer.organizationId,
          email: input.email.trim(),
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          role: input.role ?? 'USER',
          team: team?.id ?? null,
        },
      ]),
    );
    return user;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw AppError.validation([
        { field: ['email'], message: `A user with email ${input.email} already exists`, code: 'TAKEN' },
      ]);
    }
    throw err;
  }
}

export async function updateUser(
  ctx: Ctx,
  id: string,
  input: { firstName?: string | null; lastName?: string | null; role?: UserRole | null; teamId?: string | null },
): Promise<UserRow> {
  requireAdmin(ctx.viewer);
  const user = await findInOrganization(
    ctx.db,
    User,
    id,
    'select * from app_user where id = ? and organization_id = ?',
    [ctx.viewer.organizationId],
    'User',
  );
  const check = new InputCheck();
  checkPerson(check, input);
  const team = await checkTeam(ctx, check, input.teamId);
  if (input.role === null) check.add(['role'], 'Cannot be null', 'INVALID');
  check.done();
  // Only what differs is written (and `updatedAt` only then).
  const changes: Values<User> = {};
  if (input.firstName !== undefined && input.firstName !== user.firstName) changes.firstName = input.firstName;
  if (input.lastName !== undefined && input.lastName !== user.lastName) changes.lastName = input.lastName;
  if (input.role && input.role !== user.role) changes.role = input.role;
  if (input.teamId !== undefined && (team?.id ?? null) !== (user.team?.id ?? null)) changes.team = team?.id ?? null;
  const updated = Object.keys(changes).length
    ? await ctx.db.transaction((tx) => tx.update(User, user.id, changes))
    : user;
  // The callers its keys resolve to changed: every instance forgets them when the commit's
  // notification arrives, this one at once.
  ctx.settings.caches.changed('app_user');
  return updated;
}

export async function createApiKey(
  ctx: Ctx,
  input: { userId?: string | null; name?: string | null },
): Promise<{ apiKey: ApiKeyRow; secret: string }> {
  const userId = input.userId ?? ctx.viewer.userId;
  if (userId !== ctx.viewer.userId) requireAdmin(ctx.viewer);
  new InputCheck().text(['name'], input.name, { max: MAX_API_KEY_NAME }).done();
  const user = await getUser(ctx, userId);
  if (!user)
    throw AppError.validation([
      { field: ['userId'], message: 'Names no user of your organization', code: 'NOT_FOUND' },
    ]);
  const secret = generateApiKey();
  const [apiKey] = await ctx.db.transaction((tx) =>
    tx.insert(ApiKey, [
      {
        organization: user.organization,
        user: user.id,
        name: input.name ?? null,
        prefix: apiKeyPrefix(secret),
        keyHash: hashApiKey(secret),
      },
    ]),
  );
  return { apiKey, secret };
}

export async function revokeApiKey(ctx: Ctx, id: string): Promise<ApiKeyRow> {
  const apiKey = isAdmin(ctx.viewer)
    ? await findInOrganization(
        ctx.db,
        ApiKey,
        id,
        'select k.* from api_key k join app_user u on u.id = k.user_id where k.id = ? and u.organization_id = ?',
        [ctx.viewer.organizationId],
        'API key',
      )
    : await findInOrganization(
        ctx.db,
        ApiKey,
        id,
        'select * from api_key where id = ? and user_id = ?',
        [ctx.viewer.userId],
        'API key',
      );
  const revoked = apiKey.revokedAt
    ? apiKey
    : await ctx.db.transaction((tx) => tx.update(ApiKey, apiKey.id, { revokedAt: new Date() }));
  // Refused from now on: every instance forgets its cached keys when the commit's notification
  // arrives, this one at once.
  ctx.settings.caches.changed('api_key');
  return revoked;
}
