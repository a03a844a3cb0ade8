import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { sameSecret } from '../../kernel/crypto/same-secret';
import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { Actor, ServiceSettings, Viewer } from '../../kernel/graphql/context';
import type { NotificationChannel } from '../notifications/notification.entities';
import { queueNotification } from '../notifications/notification.service';
import type { BrandingSource } from '../organizations/organization.service';
import { recordActivity } from '../activity/activity.service';
import { answerHash, effectiveAuth, sha256Hex } from '../recipients/recipient-link';
import type { AuthMethod } from '../recipients/recipient.enums';
import type { Language, RequestState } from '../requests/request.enums';
import {
  CODE_DIGITS,
  CODE_RESEND_SECONDS,
  CODE_VALID_MINUTES,
  MAX_CODES_PER_HOUR,
  MAX_SIGN_IN_FAILURES,
  SESSION_HOURS,
  SIGN_IN_LOCK_MINUTES,
} from './portal.limits';

// API-DECISIONS "The recipient side": a link names one recipient of one request; the recipient signs in
// with the steps its auth method asks (a security question, a one-time code, or none) and gets a
// session, by cookie or Bearer token. Tokens, codes and answers are kept only as hashes.

declare module '../../kernel/graphql/context' {
  interface Viewer {
    /** Set for a recipient's portal session: whom it signed in as, on which request. */
    recipient?: { id: string; requestId: string };
  }
}

/** No user: a recipient's viewer sees nothing through the owners' visibility rules. */
const NO_USER = '00000000-0000-0000-0000-000000000000';

export type Client = { ip: string | null; userAgent: string | null };

/**
 * What a kind of link signs in to (a request's recipient here; a share's recipient in the shares
 * module): the same steps, codes, lockouts and sessions, kept in tables of one shape named by
 * `tables` (`<tables>_code`, `<tables>_session`, `<tables>_access`, each keyed by `recipient_id`).
 */
export type SignInKind<L extends SignInLink = SignInLink> = {
  tables: string;
  /** Prefix of its session tokens, so a token names its kind. */
  tokenPrefix: string;
  /** The 410's words once the link no longer opens what it names, else null. */
  ended(link: L, now: Date): string | null;
  /** The request a one-time code's message belongs to, if any, and whom it is addressed to. */
  codeMessage(link: L): { requestId: string | null; to: { recipientId: string } | { address: true } };
  /** Records a sign-in where its owner reads it, in the sign-in's transaction. */
  signedIn(tx: Tx, link: L, client: Client, steps: SignInStep[]): Promise<void>;
};

/** What signing in through a link needs to know of it, whatever kind it is. */
export type SignInLink = {
  kind: SignInKind<any>;
  recipientId: string;
  organizationId: string;
  linkHash: string;
  /** The request's name or the share's title: what a code's message names. */
  subjectName: string;
  expirationDate: Date | null;
  language: Language;
  mfaEnabled: boolean;
  firstName: string | null;
  email: string | null;
  phone: string | null;
  authMethod: AuthMethod;
  questionText: string | null;
  questionAnswerHash: string | null;
  passwordHash: string;
  /** The organization's branding, for the sign-in page (see brandingView). */
  branding: BrandingSource;
};

/** Who stands behind a request's link, and what its page and sign-in need to know. */
export type PortalLink = SignInLink & {
  requestId: string;
  ownerId: string;
  requestName: string;
  organizationName: string;
  ownerName: string;
  dueDate: Date | null;
  state: RequestState;
  lastName: string | null;
};

/**
 * The columns every kind of link's lookup selects for signing in: its recipient's (aliased `rc`), the
 * organization's branding (`os`), and the organization, expiration and language of what it opens.
 */
export type SignInRow = {
  recipient_id: string;
  organization_id: string;
  token_hash: string;
  expiration_date: Date | null;
  language: Language;
  first_name: string | null;
  email: string | null;
  phone: string | null;
  auth_method: AuthMethod;
  question_text: string | null;
  question_answer_hash: string | null;
  password_hash: string;
  primary_color: string | null;
  sender_name: string | null;
  support_email: string | null;
  logo_sha256: string | null;
};

/** The recipient's and branding's part of SIGN_IN_COLUMNS (the rest comes from what the link opens). */
export const SIGN_IN_COLUMNS = `rc.id as recipient_id, rc.token_hash, rc.first_name, rc.email, rc.phone, rc.auth_method, rc.question_text,
         rc.question_answer_hash, rc.password_hash, os.primary_color, os.sender_name, os.support_email, os.logo_sha256`;

/** A link's sign-in fields from its row. */
export function signInFields(row: SignInRow): Omit<SignInLink, 'kind' | 'subjectName' | 'mfaEnabled'> {
  return {
    recipientId: row.recipient_id,
    organizationId: row.organization_id,
    linkHash: row.token_hash,
    expirationDate: row.expiration_date,
    language: row.language,
    firstName: row.first_name,
    email: row.email,
    phone: row.phone,
    authMethod: row.auth_method,
    questionText: row.question_text,
    questionAnswerHash: row.question_answer_hash,
    passwordHash: row.password_hash,
    branding: {
      organizationId: row.organization_id,
      primaryColor: row.primary_color,
      senderName: row.sender_name,
      supportEmail: row.support_email,
      logoSha256: row.logo_sha256,
    },
  };
}

type LinkRow = SignInRow & {
  request_id: string;
  owner_id: string;
  request_name: string;
  organization_name: string;
  owner_name: string;
  due_date: Date | null;
  state: RequestState;
  mfa_enabled: boolean;
  last_name: string | null;
};

const LINK_SQL = `
  select ${SIGN_IN_COLUMNS}, r.id as request_id, r.organization_id, r.owner_id, r.name as request_name,
         o.name as organization_name, coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email) as owner_name,
         r.due_date, r.expiration_date, coalesce(rc.language, r.language, os.default_language) as language, r.state, r.mfa_enabled, rc.last_name
    from recipient rc
    join request r on r.id = rc.request_id
    join organization o on o.id = r.organization_id
    join app_user u on u.id = r.owner_id
    left join organization_settings os on os.organization_id = r.organization_id
   where r.deleted_at is null and r.state <> 'PRE_LINK_GENERATED'`;

function linkOf(row: LinkRow): PortalLink {
  return {
    ...signInFields(row),
    kind: REQUEST_SIGN_IN,
    subjectName: row.request_name,
    requestId: row.request_id,
    ownerId: row.owner_id,
    requestName: row.request_name,
    organizationName: row.organization_name,
    ownerName: row.owner_name,
    dueDate: row.due_date,
    state: row.state,
    mfaEnabled: row.mfa_enabled,
    lastName: row.last_name,
  };
}

/**
 * The link's recipient and request; null for a token that names none (unknown, replaced by a
 * regenerated link, its request deleted, or a draft not sent yet).
 */
export async function findLink(db: Reader, token: string): Promise<PortalLink | null> {
  // Tokens are 43 base64url characters; anything else names nothing, and costs no statement.
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const [row] = await db.rows<LinkRow>(`${LINK_SQL} and rc.token_hash = ?`, [sha256Hex(token)]);
  return row ? linkOf(row) : null;
}

/** Why a link no longer opens its request (API-DECISIONS: a 410 page), or null while it does. */
export function linkEnded(link: Pick<PortalLink, 'state' | 'expirationDate'>, now: Date): 'CLOSED' | 'EXPIRED' | null {
  if (link.state === 'CLOSED') return 'CLOSED';
  if (link.state === 'EXPIRED' || (link.expirationDate && link.expirationDate <= now)) return 'EXPIRED';
  return null;
}

export function requireLinkOpen(link: SignInLink, now: Date): void {
  const ended = link.kind.ended(link, now);
  if (ended) throw new AppError('GONE', ended);
}

export type SignInStep = 'question' | 'code';

/** A request's recipient: its activity log records the sign-in. */
export const REQUEST_SIGN_IN: SignInKind<PortalLink> = {
  tables: 'recipient',
  tokenPrefix: 'grs_',
  ended: (link, now) => {
    const ended = linkEnded(link, now);
    return ended && (ended === 'CLOSED' ? 'This request is closed' : 'This request has expired');
  },
  codeMessage: (link) => ({ requestId: link.requestId, to: { recipientId: link.recipientId } }),
  signedIn: (tx, link, client, steps) =>
    recordActivity(tx, {
      organizationId: link.organizationId,
      requestId: link.requestId,
      action: 'recipient.signed_in',
      actor: recipientActor(link.recipientId, client),
      details: { steps },
    }),
};

/** What the recipient must show, in order: `mfa_enabled` adds the code to every recipient. */
export function signInSteps(link: SignInLink): SignInStep[] {
  const auth = effectiveAuth(link.authMethod, link.mfaEnabled, link.email);
  const steps: SignInStep[] = [];
  if (auth === 'SECURITY_QUESTION') steps.push('question');
  if (auth === 'EMAIL' || auth === 'SMS' || link.mfaEnabled) steps.push('code');
  return steps;
}

/** Where codes go: the channel the auth method names, else the email, else the phone. */
export function codeDestination(link: SignInLink): { channel: NotificationChannel; address: string } | null {
  const auth = effectiveAuth(link.authMethod, link.mfaEnabled, link.email);
  if (auth === 'SMS' && link.phone) return { channel: 'SMS', address: link.phone };
  if (link.email) return { channel: 'EMAIL', address: link.email };
  return link.phone ? { channel: 'SMS', address: link.phone } : null;
}

/** `a***@example.com`, `+1******4567`: enough to recognise, not enough to learn. */
export function maskAddress(channel: NotificationChannel, address: string): string {
  if (channel === 'EMAIL') {
    const at = address.lastIndexOf('@');
    return at > 0 ? `${address[0]}***${address.slice(at)}` : '***';
  }
  const keep = address.startsWith('+') ? 2 : 0;
  return address.length <= keep + 4
    ? '*'.repeat(address.length)
    : address.slice(0, keep) + '*'.repeat(address.length - keep - 4) + address.slice(-4);
}

const codeHash = (secret: string, recipientId: string, code: string) =>
  createHmac('sha256', secret).update(`code:${recipientId}:${code}`).digest('hex');

/** The counters row of a recipient, created on first use and locked until the transaction ends. */
async function lockAccess(tx: Tx, link: SignInLink): Promise<AccessRow> {
  const table = `${link.kind.tables}_access`;
  await tx.execute(`insert into ${table} (recipient_id, organization_id) values (?, ?) on conflict do nothing`, [
    link.recipientId,
    link.organizationId,
  ]);
  const [row] = await tx.rows<AccessRow>(`select * from ${table} where recipient_id = ? for update`, [
    link.recipientId,
  ]);
  return row;
}

type AccessRow = {
  question_failures: number;
  question_locked_until: Date | null;
  code_failures: number;
  code_locked_until: Date | null;
};

/**
 * Sends a one-time code by the recipient's channel: at most one per CODE_RESEND_SECONDS and
 * MAX_CODES_PER_HOUR an hour (429 with Retry-After), counted under the recipient's lock so parallel
 * calls cannot slip past the limit together.
 */
export async function sendCode(
  db: Reader,
  settings: ServiceSettings,
  link: SignInLink,
): Promise<{ sentTo: string; expiresAt: Date }> {
  const now = settings.clock.now();
  requireLinkOpen(link, now);
  const destination = codeDestination(link);
  if (!signInSteps(link).includes('code') || !destination) {
    throw AppError.validation([{ field: [], message: 'This link signs in without a code', code: 'INVALID' }]);
  }
  return db.transaction(async (tx) => {
    await lockAccess(tx, link);
    const recent = await tx.rows<{ created_at: Date }>(
      `select created_at from ${link.kind.tables}_code where recipient_id = ? and created_at > ? order by created_at desc`,
      [link.recipientId, new Date(now.getTime() - 3_600_000)],
    );
    const sent = recent.map((row) => row.created_at.getTime());
    const resendAt = sent.length > 0 && sent[0] + CODE_RESEND_SECONDS * 1000;
    if (resendAt && resendAt > now.getTime()) {
      throw AppError.rateLimited(
        `A code was sent less than ${CODE_RESEND_SECONDS} seconds ago; wait before asking for another`,
        resendAt - now.getTime(),
      );
    }
    if (sent.length >= MAX_CODES_PER_HOUR) {
      const oldest = sent[sent.length - 1];
      throw AppError.rateLimited(
        `At most ${MAX_CODES_PER_HOUR} codes are sent in an hour; try again later`,
        oldest + 3_600_000 - now.getTime(),
      );
    }
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    const expiresAt = new Date(now.getTime() + CODE_VALID_MINUTES * 60_000);
    await tx.execute(
      `insert into ${link.kind.tables}_code (id, organization_id, recipient_id, code_hash, channel, expires_at, created_at) values (?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        link.organizationId,
        link.recipientId,
        codeHash(settings.secret, link.recipientId, code),
        destination.channel,
        expiresAt,
        now,
      ],
    );
    await queueNotification(tx, settings.secret, {
      organizationId: link.organizationId,
      ...link.kind.codeMessage(link),
      channel: destination.channel,
      address: destination.address,
      language: link.language,
      kind: 'ONE_TIME_CODE',
      params: { requestName: link.subjectName, validMinutes: CODE_VALID_MINUTES },
      secrets: { code },
    });
    return { sentTo: maskAddress(destination.channel, destination.address), expiresAt };
  });
}

export type SessionGrant = { sessionToken: string; expiresAt: Date };

type Attempt =
  | { ok: SessionGrant }
  | { wrong: SignInStep; locked: boolean }
  | { lockedUntil: Date; step: SignInStep }
  | { missing: 'answer' | 'code' };

const STEP_WORDS: Record<SignInStep, string> = { question: 'answer', code: 'code' };

/**
 * Checks the answer and the code the link's steps ask for and opens a session. A wrong one counts a
 * failure of its step (committed, then refused with 401); MAX_SIGN_IN_FAILURES in a row lock the step
 * for SIGN_IN_LOCK_MINUTES (429). The recipient's password is accepted in place of a code; a code
 * works once.
 */
export async function signIn(
  db: Reader,
  settings: ServiceSettings,
  link: SignInLink,
  given: { answer?: string | null; code?: string | null },
  client: Client,
): Promise<SessionGrant> {
  const now = settings.clock.now();
  requireLinkOpen(link, now);
  const steps = signInSteps(link);
  const attempt = await db.transaction(async (tx): Promise<Attempt> => {
    const access = await lockAccess(tx, link);
    for (const step of steps) {
      const lockedUntil = step === 'question' ? access.question_locked_until : access.code_locked_until;
      if (lockedUntil && lockedUntil > now) return { lockedUntil, step };
    }
    const fail = async (step: SignInStep): Promise<Attempt> => {
      const failures = (step === 'question' ? access.question_failures : access.code_failures) + 1;
      const locked = failures >= MAX_SIGN_IN_FAILURES;
      await tx.execute(
        `update ${link.kind.tables}_access set ${step}_failures = ?, ${step}_locked_until = ? where recipient_id = ?`,
        [
          locked ? 0 : failures,
          locked ? new Date(now.getTime() + SIGN_IN_LOCK_MINUTES * 60_000) : null,
          link.recipientId,
        ],
      );
      return { wrong: step, locked };
    };
    if (steps.includes('question')) {
      if (!given.answer?.trim()) return { missing: 'answer' };
      if (
        !link.questionAnswerHash ||
        !sameSecret(answerHash(settings.secret, link.recipientId, given.answer), link.questionAnswerHash)
      )
        return fail('question');
    }
    if (steps.includes('code')) {
      const code = given.code?.trim();
      if (!code) return { missing: 'code' };
      if (!sameSecret(sha256Hex(code), link.passwordHash)) {
        const used = await tx.execute(
          `update ${link.kind.tables}_code set used_at = ? where id = (select id from ${link.kind.tables}_code where recipient_id = ? and code_hash = ? and used_at is null and expires_at > ? limit 1)`,
          [now, link.recipientId, codeHash(settings.secret, link.recipientId, code), now],
        );
        if (used === 0) return fail('code');
      }
    }
    const token = `${link.kind.tokenPrefix}${randomBytes(32).toString('base64url')}`;
    const lifetime = new Date(now.getTime() + SESSION_HOURS * 3_600_000);
    const expiresAt = link.expirationDate && link.expirationDate < lifetime ? link.expirationDate : lifetime;
    await tx.execute(
      `update ${link.kind.tables}_access set question_failures = 0, code_failures = 0, question_locked_until = null, code_locked_until = null, signed_in_at = ? where recipient_id = ?`,
      [now, link.recipientId],
    );
    await link.kind.signedIn(tx, link, client, steps);
    await tx.execute(
      `insert into ${link.kind.tables}_session (id, organization_id, recipient_id, token_hash, link_hash, expires_at, ip, user_agent, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        link.organizationId,
        link.recipientId,
        sha256Hex(token),
        link.linkHash,
        expiresAt,
        client.ip,
        client.userAgent?.slice(0, 500) ?? null,
        now,
      ],
    );
    return { ok: { sessionToken: token, expiresAt } };
  });
  if ('ok' in attempt) return attempt.ok;
  if ('missing' in attempt)
    throw AppError.validation([
      { field: [attempt.missing], message: `This link asks for the ${attempt.missing}`, code: 'REQUIRED' },
    ]);
  if ('lockedUntil' in attempt) {
    throw AppError.rateLimited(
      `Too many wrong attempts: the ${STEP_WORDS[attempt.step]} step is locked for ${SIGN_IN_LOCK_MINUTES} minutes`,
      attempt.lockedUntil.getTime() - now.getTime(),
    );
  }
  throw new AppError(
    'UNAUTHENTICATED',
    attempt.locked
      ? `Wrong ${STEP_WORDS[attempt.wrong]}; after ${MAX_SIGN_IN_FAILURES} wrong attempts in a row it is locked for ${SIGN_IN_LOCK_MINUTES} minutes`
      : attempt.wrong === 'code'
        ? 'Wrong or expired code'
        : 'Wrong answer',
  );
}

/** A live session: whose, on which request. */
export type PortalSession = { recipientId: string; requestId: string; organizationId: string; linkHash: string };

/** The session a token opens now, if any (expired ones, and those of a replaced link, open nothing). */
export async function findSession(db: Reader, token: string, now: Date): Promise<PortalSession | null> {
  if (!token.startsWith(REQUEST_SIGN_IN.tokenPrefix)) return null;
  const [row] = await db.rows<{
    recipient_id: string;
    request_id: string;
    organization_id: string;
    token_hash: string;
  }>(
    `select s.recipient_id, rc.request_id, r.organization_id, rc.token_hash
       from recipient_session s join recipient rc on rc.id = s.recipient_id join request r on r.id = rc.request_id
      where s.token_hash = ? and s.expires_at > ? and s.link_hash = rc.token_hash and r.deleted_at is null`,
    [sha256Hex(token), now],
  );
  return row
    ? {
        recipientId: row.recipient_id,
        requestId: row.request_id,
        organizationId: row.organization_id,
        linkHash: row.token_hash,
      }
    : null;
}

/** Whether a credential is a recipient session token (they carry their own prefix). */
export const isSessionToken = (credential: string): boolean => credential.startsWith(REQUEST_SIGN_IN.tokenPrefix);

/**
 * The viewer of a recipient's operations: no user, so the owners' visibility rules show it nothing;
 * the actor guard lets it call only the recipient operations, which read by `recipient`.
 */
export const recipientActor = (recipientId: string, client: Client): Actor => ({
  type: 'RECIPIENT',
  id: recipientId,
  ip: client.ip,
  userAgent: client.userAgent?.slice(0, 500) ?? null,
});

export function recipientViewer(
  session: Pick<PortalSession, 'recipientId' | 'requestId' | 'organizationId'>,
  client: Client,
): Viewer {
  const actor = recipientActor(session.recipientId, client);
  return {
    organizationId: session.organizationId,
    userId: NO_USER,
    teamId: null,
    role: 'USER',
    apiKeyId: '',
    actor,
    recipient: { id: session.recipientId, requestId: session.requestId },
  };
}

/**
 * The viewer that renders a recipient's events: the service, seeing the request as an ADMIN of its
 * organization would (the event's data is the owner's view of the record), never a caller's.
 */
export function renderingViewer(organizationId: string): Viewer {
  return {
    organizationId,
    userId: NO_USER,
    teamId: null,
    role: 'ADMIN',
    apiKeyId: '',
    actor: { type: 'SYSTEM', id: null },
  };
}

/**
 * The first time a recipient opens its link: `user_opened` on the request, the time on the recipient,
 * and an entry in the activity log, in one transaction; one write on every later visit.
 */
export async function markOpened(db: Reader, link: PortalLink, now: Date, client: Client): Promise<void> {
  await db.transaction(async (tx) => {
    const opened = await tx.execute(
      `with first as (
         insert into recipient_access (recipient_id, organization_id, opened_at) values (?, ?, ?)
         on conflict (recipient_id) do update set opened_at = excluded.opened_at where recipient_access.opened_at is null
         returning 1)
       update request set user_opened = true where id = ? and exists (select 1 from first)`,
      [link.recipientId, link.organizationId, now, link.requestId],
    );
    if (opened > 0)
      await recordActivity(tx, {
        organizationId: link.organizationId,
        requestId: link.requestId,
        action: 'recipient.opened',
        actor: recipientActor(link.recipientId, client),
      });
  });
}
