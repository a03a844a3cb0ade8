import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';

/** A link mailed to a user to sign in with: its token is shown once (in the mail) and kept as a hash; it works once. */
export const SignInLink = defineEntity({
  name: 'SignInLink',
  tableName: 'sign_in_link',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    user: () => p.manyToOne(User).ref(),
    tokenHash: p.string().length(64).columnType('char(64)'),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});
export type SignInLink = InferEntity<typeof SignInLink>;
export type SignInLinkRow = Row<SignInLink>;

/**
 * A signed-in user's session in a browser: its token lives in the `gather_session` cookie and here as a hash. It
 * ends when unused for SESSION_IDLE_HOURS (`idleExpiresAt`, moved by each use), SESSION_MAX_DAYS after the sign-in
 * (`expiresAt`), or when signed out.
 */
export const UserSession = defineEntity({
  name: 'UserSession',
  tableName: 'user_session',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    user: () => p.manyToOne(User).ref(),
    tokenHash: p.string().length(64).columnType('char(64)'),
    idleExpiresAt: p.datetime(),
    expiresAt: p.datetime(),
    lastSeenAt: p.datetime(),
    ip: p.text().nullable(),
    userAgent: p.text().nullable(),
    createdAt: createdAt(),
  },
});
export type UserSession = InferEntity<typeof UserSession>;
export type UserSessionRow = Row<UserSession>;
