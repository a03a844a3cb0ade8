import { sql, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';
import { ApiKey, Organization, Team, User, type UserRole, type UserRow, type TeamRow } from './identity.entities';
import { isAdmin, type Viewer } from './viewer';
import { inTransaction } from '../../kernel/db/transaction';
import { MAX_EMAIL, MAX_PERSON_NAME } from '../../kernel/limits';
import { MAX_API_KEY_NAME, MAX_ORGANIZATION_NAME, MAX_TEAM_NAME } from './identity.limits';

type Ctx = Pick<GraphQLContext, 'em' | 'viewer' | 'settings'>;

export const DEFAULT_ADMIN_EMAIL = 'admin@gather.local';

/** Emails are unique without regard to case. */
function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(User, { [sql`lower(email)`]: email.trim().toLowerCase() });
}

function requireAdmin(viewer: Viewer): void {
  if (!isAdmin(viewer)) throw AppError.forbidden('Only an ADMIN of the organization may do this');
}

/** A record of the caller's organization by id, or NOT_FOUND (malformed ids included). */
async function findInOrganization<T extends object>(
  em: EntityManager,
  entity: typeof User | typeof Team | typeof ApiKey,
  id: string,
  where: Record<string, unknown>,
  resource: string,
): Promise<T> {
  const record = isUuid(id) ? await em.findOne(entity as never, { id, ...where } as never) : null;
  if (!record) throw AppError.notFound(resource);
  return record as T;
}

export async function getUser(ctx: Ctx, id: string): Promise<User | null> {
  if (!isUuid(id)) return null;
  return ctx.em.findOne(User, { id, organization: ctx.viewer.organizationId });
}

export async function getTeam(ctx: Ctx, id: string): Promise<Team | null> {
  if (!isUuid(id)) return null;
  return ctx.em.findOne(Team, { id, organization: ctx.viewer.organizationId });
}

/** An API key of the organization: an ADMIN sees all, a USER its own. */
export async function getApiKey(ctx: Ctx, id: string): Promise<ApiKey | null> {
  if (!isUuid(id)) return null;
  const apiKey = await ctx.em.findOne(ApiKey, { id, user: { organization: ctx.viewer.organizationId } });
  return apiKey && (isAdmin(ctx.viewer) || apiKey.user.id === ctx.viewer.userId) ? apiKey : null;
}

export async function getOrganization(ctx: Ctx): Promise<Organization> {
  return ctx.em.findOneOrFail(Organization, ctx.viewer.organizationId);
}

export async function listUsers(ctx: Ctx, args: PageArgs): Promise<Connection<UserRow>> {
  const qb = ctx.em.createQueryBuilder(User, 'u').where({ organization: ctx.viewer.organizationId });
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'ASC' });
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
  em: EntityManager,
  input: { name: string; adminEmail: string; adminFirstName?: string; adminLastName?: string; apiKey?: string },
): Promise<{ organization: Organization; user: User; apiKey: string }> {
  const check = new InputCheck().text(['name'], input.name, { max: MAX_ORGANIZATION_NAME, min: 1, required: true });
  check.email(['adminEmail'], input.adminEmail);
  check.done();
  return inTransaction(em, async (tx) => {
    if (await findUserByEmail(tx, input.adminEmail)) {
      throw AppError.validation([
        { field: ['adminEmail'], message: `A user with email ${input.adminEmail} already exists`, code: 'TAKEN' },
      ]);
    }
    const organization = tx.create(Organization, { name: input.name });
    const user = tx.create(User, {
      organization,
      email: input.adminEmail,
      firstName: input.adminFirstName ?? null,
      lastName: input.adminLastName ?? null,
      role: 'ADMIN',
    });
    const apiKey = input.apiKey ?? generateApiKey();
    tx.create(ApiKey, {
      organization,
      user,
      name: 'initial',
      prefix: apiKeyPrefix(apiKey),
      keyHash: hashApiKey(apiKey),
    });
    return { organization, user, apiKey };
  });
}

/**
 * On an empty database, creates the default organization and its admin (with GATHER_ADMIN_API_KEY
 * when set). Returns the key when it was created here, so the caller can show it once.
 */
export async function bootstrapFirstAdmin(
  em: EntityManager,
  options: { apiKey?: string; email?: string },
): Promise<{ organizationId: string; userId: string; apiKey: string } | null> {
  if ((await em.count(Organization, {})) > 0) return null;
  const { organization, user, apiKey } = await createOrganization(em, {
    name: 'Default organization',
    adminEmail: options.email ?? DEFAULT_ADMIN_EMAIL,
    apiKey: options.apiKey,
  });
  return { organizationId: organization.id, userId: user.id, apiKey };
}

/** Adds a key for a user found by email (CLI). */
export async function createApiKeyForEmail(
  em: EntityManager,
  email: string,
  name?: string,
): Promise<{ user: User; apiKey: string }> {
  const user = await findUserByEmail(em, email);
  if (!user) throw AppError.notFound('User');
  const apiKey = generateApiKey();
  em.create(ApiKey, {
    organization: user.organization,
    user,
    name: name ?? null,
    prefix: apiKeyPrefix(apiKey),
    keyHash: hashApiKey(apiKey),
  });
  await em.flush();
  return { user, apiKey };
}

export async function createTeam(ctx: Ctx, input: { name: string }): Promise<Team> {
  requireAdmin(ctx.viewer);
  new InputCheck().text(['name'], input.name, { max: MAX_TEAM_NAME, min: 1, required: true }).done();
  const team = ctx.em.create(Team, { organization: ctx.viewer.organizationId, name: input.name.trim() });
  await ctx.em.flush();
  return team;
}

async function checkTeam(ctx: Ctx, check: InputCheck, teamId: string | null | undefined): Promise<Team | null> {
  if (teamId == null) return null;
  const team = await getTeam(ctx, teamId);
  if (!team) check.add(['teamId'], 'Names no team of your organization', 'NOT_FOUND');
  return team;
}

async function flushUniqueEmail(em: EntityManager, email: string): Promise<void> {
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw AppError.validation([
        { field: ['email'], message: `A user with email ${email} already exists`, code: 'TAKEN' },
      ]);
    }
    throw err;
  }
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
): Promise<User> {
  requireAdmin(ctx.viewer);
  const check = new InputCheck();
  check.text(['email'], input.email, { max: MAX_EMAIL, required: true });
  checkPerson(check, input);
  const team = await checkTeam(ctx, check, input.teamId);
  check.done();
  const user = ctx.em.create(User, {
    organization: ctx.viewer.organizationId,
    email: input.email.trim(),
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    role: input.role ?? 'USER',
    team,
  });
  await flushUniqueEmail(ctx.em, input.email);
  return user;
}

export async function updateUser(
  ctx: Ctx,
  id: string,
  input: { firstName?: string | null; lastName?: string | null; role?: UserRole | null; teamId?: string | null },
): Promise<User> {
  requireAdmin(ctx.viewer);
  const user = await findInOrganization<User>(ctx.em, User, id, { organization: ctx.viewer.organizationId }, 'User');
  const check = new InputCheck();
  checkPerson(check, input);
  const team = await checkTeam(ctx, check, input.teamId);
  if (input.role === null) check.add(['role'], 'Cannot be null', 'INVALID');
  check.done();
  if (input.firstName !== undefined) user.firstName = input.firstName;
  if (input.lastName !== undefined) user.lastName = input.lastName;
  if (input.role) user.role = input.role;
  if (input.teamId !== undefined) user.team = team ? ctx.em.getReference(Team, team.id, { wrapped: true }) : null;
  await ctx.em.flush();
  // The callers its keys resolve to changed: every instance forgets them when the commit's
  // notification arrives, this one at once.
  ctx.settings.caches.changed('app_user');
  return user;
}

export async function createApiKey(
  ctx: Ctx,
  input: { userId?: string | null; name?: string | null },
): Promise<{ apiKey: ApiKey; secret: string }> {
  const userId = input.userId ?? ctx.viewer.userId;
  if (userId !== ctx.viewer.userId) requireAdmin(ctx.viewer);
  new InputCheck().text(['name'], input.name, { max: MAX_API_KEY_NAME }).done();
  const user = await getUser(ctx, userId);
  if (!user)
    throw AppError.validation([
      { field: ['userId'], message: 'Names no user of your organization', code: 'NOT_FOUND' },
    ]);
  const secret = generateApiKey();
  const apiKey = ctx.em.create(ApiKey, {
    organization: user.organization,
    user,
    name: input.name ?? null,
    prefix: apiKeyPrefix(secret),
    keyHash: hashApiKey(secret),
  });
  await ctx.em.flush();
  return { apiKey, secret };
}

export async function revokeApiKey(ctx: Ctx, id: string): Promise<ApiKey> {
  const where = isAdmin(ctx.viewer)
    ? { user: { organization: ctx.viewer.organizationId } }
    : { user: ctx.viewer.userId };
  const apiKey = await findInOrganization<ApiKey>(ctx.em, ApiKey, id, where, 'API key');
  apiKey.revokedAt ??= new Date();
  await ctx.em.flush();
  // Refused from now on: every instance forgets its cached keys when the commit's notification
  // arrives, this one at once.
  ctx.settings.caches.changed('api_key');
  return apiKey;
}
