import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/lean';
import { NOTIFICATION_CHANNELS } from '../notifications/notification.entities';
import { Recipient } from '../recipients/recipient.entities';
import { Request } from '../requests/request.entities';

/** A one-time code sent to a recipient, kept as a keyed hash; used once, within its validity. */
export const RecipientCode = defineEntity({
  name: 'RecipientCode',
  tableName: 'recipient_code',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    recipient: () => p.manyToOne(Recipient).ref(),
    codeHash: p.string().length(64).columnType('char(64)'),
    channel: p.enum([...NOTIFICATION_CHANNELS]),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});
export type RecipientCode = InferEntity<typeof RecipientCode>;

/** A signed-in recipient: its token is shown once (cookie and body) and kept as a hash. */
export const RecipientSession = defineEntity({
  name: 'RecipientSession',
  tableName: 'recipient_session',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    recipient: () => p.manyToOne(Recipient).ref(),
    tokenHash: p.string().length(64).columnType('char(64)'),
    /** The recipient's link when it signed in: a regenerated link ends the sessions of the old one. */
    linkHash: p.string().length(64).columnType('char(64)'),
    expiresAt: p.datetime(),
    ip: p.text().nullable(),
    userAgent: p.text().nullable(),
    createdAt: createdAt(),
  },
});
export type RecipientSession = InferEntity<typeof RecipientSession>;

/** A recipient's sign-in counters (each step locks after repeated failures) and first visits. */
export const RecipientAccess = defineEntity({
  name: 'RecipientAccess',
  tableName: 'recipient_access',
  properties: {
    recipient: () => p.oneToOne(Recipient).primary().ref(),
    organization: () => p.manyToOne(Organization).ref(),
    questionFailures: p.integer().default(0),
    questionLockedUntil: p.datetime().nullable(),
    codeFailures: p.integer().default(0),
    codeLockedUntil: p.datetime().nullable(),
    openedAt: p.datetime().nullable(),
    signedInAt: p.datetime().nullable(),
  },
});
export type RecipientAccess = InferEntity<typeof RecipientAccess>;

export const SUBMISSION_OUTCOMES = ['COMPLETE', 'REQUIRED_COMPLETE', 'PARTIAL'] as const;
export type SubmissionOutcome = (typeof SUBMISSION_OUTCOMES)[number];

/** One submission of a request by a recipient, with its comment. */
export const Submission = defineEntity({
  name: 'Submission',
  tableName: 'submission',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    recipient: () => p.manyToOne(Recipient).ref().nullable(),
    outcome: p.enum([...SUBMISSION_OUTCOMES]),
    comment: p.text().nullable(),
    createdAt: createdAt(),
  },
});
export type Submission = InferEntity<typeof Submission>;
export type SubmissionRow = Row<Submission>;
