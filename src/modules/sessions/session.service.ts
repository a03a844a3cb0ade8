import { randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import type { Db, Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { ServiceSettings, Viewer } from '../../kernel/graphql/context';
import type { EdgeStore } from '../../kernel/http/edge-store';
import { USER_SESSION_PREFIX } from '../../kernel/http/cookies';
import { addJob, type TaskHandler } from '../../kernel/jobs/queue';
import { InputCheck } from '../../kernel/validation/input-check';
import { findUserByEmail } from '../identity/identity.service';
import { User, type UserRow } from '../identity/identity.entities';
import { queueNotification } from '../notifications/notification.service';
import type { Client } from '../portal/portal.access';
import { sha256Hex } from '../recipients/recipient-link';
import { SignInLink, UserSession } from './session.entities';
import {
  SESSION_IDLE_HOURS,
  SESSION_MAX_DAYS,
  SESSION_TOUCH_SECONDS,
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_LINK_MINUTES,
  SIGN_IN_LINKS_PER_EMAIL,
  SIGN_IN_WINDOW_MINUTES,
} from './session.limits';

// A user signs in in a browser with a link mailed to its address (through the notification outbox), which opens a
// session held in the `gather_session` cookie; every API takes that cookie as it takes an API key (app.ts). Links and
// sessions are kept as hashes of their tokens only.

type Settings = Pick<ServiceSettings, 'publicUrl' | 'secret' | 'clock'>;

/** What signing in needs: the database, the deployment, and the counters every instance shares (the HTTP edge's). */
export type SignInDeps = { db: Reader; settings: Settings; counters: EdgeStore };

/** Where a sign-in goes by default: the console. */
export const DEFAULT_NEXT = '/app';

const LINK_PREFIX = 'gsl_';

const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A path of the console (`/app`, `/app/…`) in printable ASCII, else null: never another origin. */
export function consolePath(next: unknown): string | null {
  return typeof next === 'string' && next.length <= 2000 && /^\/app(?:[/?#][\x21-\x5b\x5d-\x7e]*)?$/.test(next)
    ? next
    : null;
}

/** The page a mailed link opens: it signs in only when its button is pressed (mail scanners open links). */
export function signInUrl(publicUrl: string, token: string, next: string | null): string {
  const then = next && next !== DEFAULT_NEXT ? `&next=${encodeURIComponent(next)}` : '';
  return `${publicUrl}/sign-in/verify?token=${token}${then}`;
}

/**
 * Counts one sign-in call against its client's address (and its e-mail address, when it asks for a link), and
 * refuses it with 429 past either limit. Counted whether or not the address is a user's, so a refusal says nothing.
 */
async function countAttempt(counters: EdgeStore, client: Client, email?: string): Promise<void> {
  const windowMs = SIGN_IN_WINDOW_MINUTES * 60_000;
  const counts = [
    {
      ...(await counters.hit(`sign-in:address:${normalizeIP(client.ip ?? '')}`, windowMs)),
      max: SIGN_IN_ATTEMPTS_PER_ADDRESS,
    },
    ...(email
      ? [{ ...(await counters.hit(`sign-in:email:${sha256Hex(email)}`, windowMs)), max: SIGN_IN_LINKS_PER_EMAIL }]
      : []),
  ];
  const over = counts.filter((c) => c.count > c.max);
  if (over.length)
    throw AppError.rateLimited('Too many sign-in attempts; try again later', Math.max(...over.map((c) => c.ttlMs)));
}

/** The job that mints a link and mails it, once the request for it committed. */
export const SIGN_IN_LINK_TASK = 'sign-in.link';

/**
 * `POST /auth/sign-in`: queues a link for the address. The answer is the same whether or not the address is a
 * user's, and so is the work done before it (a job): the job looks the user up, after the answer.
 */
export async function requestSignInLink(
  { db, counters }: SignInDeps,
  input: { email: string; next?: string | null },
  client: Client,
): Promise<void> {
  const check = new InputCheck();
  const given = input.email?.trim() ?? '';
  if (!given) check.add(['email'], 'Field required', 'REQUIRED');
  else check.email(['email'], given);
  if (input.next != null && !consolePath(input.next))
    check.add(['next'], 'Must be a path of the console: /app or under /app/', 'INVALID');
  check.done();
  const email = given.toLowerCase();
  await countAttempt(counters, client, email);
  await db.transaction((tx) => addJob(tx, SIGN_IN_LINK_TASK, { email, next: input.next ?? null }));
}

/** A new link for `user`, valid SIGN_IN_LINK_MINUTES from `now`; the user's spent links go. */
async function mintLink(tx: Tx, user: UserRow, now: Date): Promise<{ token: string; expiresAt: Date }> {
  await tx.execute('delete from sign_in_link where user_id = ? and (used_at is not null or expires_at <= ?)', [
    user.id,
    now,
  ]);
  const token = newToken(LINK_PREFIX);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000);
  await tx.insert(SignInLink, [
    { organization: user.organization.id, user: user.id, tokenHash: sha256Hex(token), expiresAt, createdAt: now },
  ]);
  return { token, expiresAt };
}

/** The task of SIGN_IN_LINK_TASK: the user's link, mailed (kept in the outbox where no SMTP_URL is set); none for a stranger. */
export function sessionTasks({ db, settings }: { db: Db; settings: Settings }): Record<string, TaskHandler> {
  return {
    [SIGN_IN_LINK_TASK]: ({ email, next }: { email: string; next: string | null }) =>
      db.transaction(async (tx) => {
        const user = await findUserByEmail(tx, email);
        if (!user) return;
        const { token } = await mintLink(tx, user, settings.clock.now());
        await queueNotification(tx, settings.secret, {
          organizationId: user.organization.id,
          requestId: null,
          to: { userId: user.id },
          channel: 'EMAIL',
          address: user.email,
          language: 'en-US',
          kind: 'SIGN_IN_LINK',
          params: { firstName: user.firstName, validMinutes: SIGN_IN_LINK_MINUTES },
          secrets: { link: signInUrl(settings.publicUrl, token, consolePath(next)) },
        });
      }),
  };
}

/** A link for a user named by e-mail, for the CLI (a fresh machine without mail): no mail, no limit. */
export async function signInLinkForEmail(
  db: Reader,
  settings: Pick<Settings, 'publicUrl' | 'clock'>,
  email: string,
  next?: string | null,
): Promise<{ user: UserRow; url: string; expiresAt: Date }> {
  if (next != null && !consolePath(next)) throw new AppError('BAD_USER_INPUT', 'next must be /app or under /app/');
  return db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) throw AppError.notFound('User');
    const { token, expiresAt } = await mintLink(tx, user, settings.clock.now());
    return { user, url: signInUrl(settings.publicUrl, token, next ?? null), expiresAt };
  });
}

/** A session just opened: its token (for the cookie alone) and when it ends unless used. */
export type SessionGrant = { user: UserRow; token: string; expiresAt: Date; maxAgeSeconds: number };

/**
 * `POST /auth/verify`: spends a link (once, within its minutes) and opens a session of its user, in one
 * transaction; 401 for a link unknown, used or expired, 429 past the address's limit.
 */
export async function verifySignInLink(
  { db, settings, counters }: SignInDeps,
  token: string,
  client: Client,
): Promise<SessionGrant> {
  await countAttempt(counters, client);
  const now = settings.clock.now();
  const grant = await db.transaction(async (tx) => {
    const [link] = await tx.rows<{ user_id: string }>(
      'update sign_in_link set used_at = ? where token_hash = ? and used_at is null and expires_at > ? returning user_id',
      [now, sha256Hex(token), now],
    );
    if (!link) return null;
    const [user] = await tx.records(User, 'select * from app_user where id = ?', [link.user_id]);
    // The user's ended sessions go as a new one opens.
    await tx.execute('delete from user_session where user_id = ? and (idle_expires_at <= ? or expires_at <= ?)', [
      user.id,
      now,
      now,
    ]);
    const sessionToken = newToken(USER_SESSION_PREFIX);
    const expiresAt = new Date(now.getTime() + SESSION_MAX_DAYS * 86_400_000);
    const idleExpiresAt = new Date(now.getTime() + SESSION_IDLE_HOURS * 3_600_000);
    await tx.insert(UserSession, [
      {
        organization: user.organization.id,
        user: user.id,
        tokenHash: sha256Hex(sessionToken),
        idleExpiresAt,
        expiresAt,
        lastSeenAt: now,
        ip: client.ip,
        userAgent: client.userAgent?.slice(0, 500) ?? null,
        createdAt: now,
      },
    ]);
    return {
      user,
      token: sessionToken,
      expiresAt: idleExpiresAt,
      maxAgeSeconds: (expiresAt.getTime() - now.getTime()) / 1000,
    };
  });
  if (!grant)
    throw new AppError(
      'UNAUTHENTICATED',
      'This sign-in link is not valid: it was used, or it expired. Ask for a new one.',
    );
  return grant;
}

/** A live session: its user as the caller of every API, and when it ends unless used again. */
export type FoundSession = { viewer: Viewer; expiresAt: Date };

type SessionRow = {
  user_id: string;
  organization_id: string;
  team_id: string | null;
  role: Viewer['role'];
  ends_at: Date;
};

/**
 * The session a cookie's token opens now, if any, read with its user (whose role and team are the current ones).
 * One statement, which also moves the session's idle end when it was last moved SESSION_TOUCH_SECONDS ago or more.
 */
export async function findUserSession(db: Reader, token: string, now: Date): Promise<FoundSession | null> {
  if (!token.startsWith(USER_SESSION_PREFIX)) return null;
  const [row] = await db.rows<SessionRow>(
    `with found as (
       select s.id, s.user_id, s.last_seen_at, s.idle_expires_at, s.expires_at, u.organization_id, u.team_id, u.role
         from user_session s join app_user u on u.id = s.user_id
        where s.token_hash = ? and s.idle_expires_at > ? and s.expires_at > ?),
     touched as (
       update user_session s set last_seen_at = ?, idle_expires_at = least(?::timestamptz, f.expires_at)
         from found f where s.id = f.id and f.last_seen_at <= ?
       returning s.idle_expires_at)
     select f.user_id, f.organization_id, f.team_id, f.role,
            coalesce((select idle_expires_at from touched), f.idle_expires_at) as ends_at
       from found f`,
    [
      sha256Hex(token),
      now,
      now,
      now,
      new Date(now.getTime() + SESSION_IDLE_HOURS * 3_600_000),
      new Date(now.getTime() - SESSION_TOUCH_SECONDS * 1000),
    ],
  );
  if (!row) return null;
  return {
    viewer: {
      userId: row.user_id,
      organizationId: row.organization_id,
      teamId: row.team_id,
      role: row.role,
      apiKeyId: '',
      actor: { type: 'USER', id: row.user_id },
    },
    expiresAt: row.ends_at,
  };
}

/** `GET /auth/session`: the session's user and organization. */
export async function describeSession(
  db: Reader,
  session: FoundSession,
): Promise<{ user: UserRow; organization: { id: string; name: string }; expiresAt: Date }> {
  const [user] = await db.records(User, 'select * from app_user where id = ?', [session.viewer.userId]);
  const [organization] = await db.rows<{ id: string; name: string }>('select id, name from organization where id = ?', [
    session.viewer.organizationId,
  ]);
  return { user, organization, expiresAt: session.expiresAt };
}

/** `POST /auth/sign-out`: ends the session the token opens, or with `everywhere` every session of its user. */
export async function signOut(db: Reader, token: string, everywhere: boolean): Promise<void> {
  await db.transaction((tx) =>
    tx.execute(
      everywhere
        ? 'delete from user_session where user_id = (select user_id from user_session where token_hash = ?)'
        : 'delete from user_session where token_hash = ?',
      [sha256Hex(token)],
    ),
  );
}
