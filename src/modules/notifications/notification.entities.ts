import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';
import { Recipient } from '../recipients/recipient.entities';
import { LANGUAGES } from '../requests/request.enums';
import { Request } from '../requests/request.entities';

export const NOTIFICATION_CHANNELS = ['EMAIL', 'SMS'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/**
 * PENDING until an attempt settles it; SENT when the mail server or SMS provider took it; KEPT when
 * nothing would carry it (no SMTP_URL, the log SMS provider): stored for a developer to read;
 * FAILED after the last attempt, or when it cannot be built.
 */
export const NOTIFICATION_STATUSES = ['PENDING', 'SENT', 'KEPT', 'FAILED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export const NOTIFICATION_KINDS = [
  'INVITATION',
  'ONE_TIME_CODE',
  'CHANGES_REQUESTED',
  'REQUEST_SUBMITTED',
  'REQUEST_COMPLETED',
  'REMINDER',
  'EXPIRATION_WARNING',
  'ESCALATION',
  'SHARE_INVITATION',
  'SIGN_IN_LINK',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notification',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref().nullable(),
    /** Who it is for: a recipient of the request, or a user (the owner, a collaborator). */
    recipient: () => p.manyToOne(Recipient).ref().nullable(),
    user: () => p.manyToOne(User).ref().nullable(),
    channel: p.enum([...NOTIFICATION_CHANNELS]),
    kind: p.enum([...NOTIFICATION_KINDS]),
    address: p.string().length(320),
    language: p.enum([...LANGUAGES]),
    /** What the template fills in, as given when queued; never a secret (see `secretsSealed`). */
    params: p.json<Record<string, unknown>>(),
    /** Values shown to the addressee but masked in the stored body (a one-time code), sealed until sent. */
    secretsSealed: p.text().nullable(),
    /** The message as last rendered (at its attempt), with secrets masked; null until then. */
    subject: p.text().nullable(),
    text: p.text().nullable(),
    html: p.text().nullable(),
    status: p.enum([...NOTIFICATION_STATUSES]),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().nullable(),
    lockedUntil: p.datetime().nullable(),
    lastError: p.text().nullable(),
    sentAt: p.datetime().nullable(),
    /** The SMS vendor's id of the message, once it took it. */
    providerMessageId: p.text().nullable(),
    /** The last status the SMS vendor reported (`queued`, `sent`, `delivered`, `undelivered`, `failed`, ...). */
    deliveryStatus: p.text().nullable(),
    ...timestamps(),
  },
});
export type Notification = InferEntity<typeof Notification>;
/** A Notification as read paths return it (see `Row`). */
export type NotificationRow = Row<Notification>;
