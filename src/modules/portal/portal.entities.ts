import { defineEntity, p, type EntitySchema, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/db';
import { NOTIFICATION_CHANNELS } from '../notifications/notification.entities';
import { Recipient } from '../recipients/recipient.entities';
import { Request } from '../requests/request.entities';

/**
 * The sign-in records of a kind of link (SignInKind.tables): one-time codes kept as keyed hashes, used
 * once within their validity; sessions, whose token is shown once (cookie and body) and kept as a
 * hash; and each recipient's counters (a step locks after repeated failures) and first visits.
 */
export function signInEntities(names: { entity: string; tables: string; recipient: () => EntitySchema<any, any> }) {
  const code = defineEntity({
    name: `${names.entity}Code`,
    tableName: `${names.tables}_code`,
    properties: {
      id: uuidPrimaryKey(),
      organization: () => p.manyToOne(Organization).ref(),
      recipient: () => p.manyToOne(names.recipient()).ref(),
      codeHash: p.string().length(64).columnType('char(64)'),
      channel: p.enum([...NOTIFICATION_CHANNELS]),
      expiresAt: p.datetime(),
      usedAt: p.datetime().nullable(),
      createdAt: createdAt(),
    },
  });
  const session = defineEntity({
    name: `${names.entity}Session`,
    tableName: `${names.tables}_session`,
    properties: {
      id: uuidPrimaryKey(),
      organization: () => p.manyToOne(Organization).ref(),
      recipient: () => p.manyToOne(names.recipient()).ref(),
      tokenHash: p.string().length(64).columnType('char(64)'),
      /** The recipient's link when it signed in: a regenerated link ends the sessions of the old one. */
      linkHash: p.string().length(64).columnType('char(64)'),
      expiresAt: p.datetime(),
      ip: p.text().nullable(),
      userAgent: p.text().nullable(),
      createdAt: createdAt(),
    },
  });
  const access = defineEntity({
    name: `${names.entity}Access`,
    tableName: `${names.tables}_access`,
    properties: {
      recipient: () => p.oneToOne(names.recipient()).primary().ref(),
      organization: () => p.manyToOne(Organization).ref(),
      questionFailures: p.integer().default(0),
      questionLockedUntil: p.datetime().nullable(),
      codeFailures: p.integer().default(0),
      codeLockedUntil: p.datetime().nullable(),
      openedAt: p.datetime().nullable(),
      signedInAt: p.datetime().nullable(),
    },
  });
  return [code, session, access] as const;
}

/** A request recipient's sign-in records (REQUEST_SIGN_IN). */
export const RECIPIENT_SIGN_IN_ENTITIES = signInEntities({
  entity: 'Recipient',
  tables: 'recipient',
  recipient: () => Recipient,
});

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

/**
 * An unfinished resumable upload (portal.uploads.ts), from its creation until it finishes, is cancelled
 * or expires: what the upload limits count. `length` is its declared Upload-Length.
 */
export const PartialUpload = defineEntity({
  name: 'PartialUpload',
  tableName: 'partial_upload',
  properties: {
    /** The tus upload id. */
    id: p.text().primary(),
    organization: () => p.manyToOne(Organization).ref(),
    /** The digest prefix of the recipient link's token that begins the upload's id. */
    linkTag: p.string().length(16).columnType('char(16)'),
    length: p.bigint('number'),
    createdAt: createdAt(),
  },
});
