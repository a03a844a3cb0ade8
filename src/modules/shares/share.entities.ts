import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';
import { StoredFile } from '../files/file.entities';
import { signInEntities } from '../portal/portal.entities';
import { AUTH_METHODS, SEND_METHODS } from '../recipients/recipient.enums';
import { LANGUAGES } from '../requests/request.enums';

/**
 * DRAFT until sent; SENT once its recipients were mailed; EXPIRED when `expirationDate` passed (the
 * page answers 410); DELETED when `deletionDate` passed and its files went from storage.
 */
export const SHARE_STATUSES = ['DRAFT', 'SENT', 'EXPIRED', 'DELETED'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

/** Files an owner sends to recipients: the reverse of a request. */
export const Share = defineEntity({
  name: 'Share',
  tableName: 'share',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    title: p.text(),
    customMessage: p.text().nullable(),
    language: p.enum([...LANGUAGES]),
    sendMethod: p.enum([...SEND_METHODS]),
    status: p.enum([...SHARE_STATUSES]),
    expirationDate: p.datetime().nullable(),
    deletionDate: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    filesDeletedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type Share = InferEntity<typeof Share>;
export type ShareRow = Row<Share>;

/** Someone a share is sent to, with its own link (derived from `linkNonce`, kept as a hash) and sign-in method. */
export const ShareRecipient = defineEntity({
  name: 'ShareRecipient',
  tableName: 'share_recipient',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    share: () => p.manyToOne(Share).ref(),
    email: p.string().length(320).nullable(),
    firstName: p.string().length(100).nullable(),
    lastName: p.string().length(100).nullable(),
    phone: p.string().length(40).nullable(),
    authMethod: p.enum([...AUTH_METHODS]),
    questionText: p.text().nullable(),
    questionAnswerHash: p.string().length(64).columnType('char(64)').nullable(),
    sendMethod: p.enum([...SEND_METHODS]),
    completionOrder: p.integer().nullable(),
    position: p.integer(),
    linkNonce: p.string().length(32),
    tokenHash: p.string().length(64).columnType('char(64)'),
    passwordHash: p.string().length(64).columnType('char(64)'),
    createdAt: createdAt(),
  },
});
export type ShareRecipient = InferEntity<typeof ShareRecipient>;
export type ShareRecipientRow = Row<ShareRecipient>;

/** A file of a share (its bytes are a stored file). */
export const ShareFile = defineEntity({
  name: 'ShareFile',
  tableName: 'share_file',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    share: () => p.manyToOne(Share).ref(),
    file: () => p.manyToOne(StoredFile).ref(),
    position: p.integer(),
    createdAt: createdAt(),
  },
});
export type ShareFile = InferEntity<typeof ShareFile>;
export type ShareFileRow = Row<ShareFile>;

/** One download of a share's file by one of its recipients: who, when, which file (its name kept past the file). */
export const ShareDownload = defineEntity({
  name: 'ShareDownload',
  tableName: 'share_download',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    share: () => p.manyToOne(Share).ref(),
    shareFile: () => p.manyToOne(ShareFile).ref().nullable(),
    recipient: () => p.manyToOne(ShareRecipient).ref(),
    fileName: p.string().length(255),
    size: p.integer(),
    ip: p.text().nullable(),
    userAgent: p.text().nullable(),
    downloadedAt: p.datetime(),
  },
});
export type ShareDownload = InferEntity<typeof ShareDownload>;
export type ShareDownloadRow = Row<ShareDownload>;

/** A share recipient's codes, sessions and counters (SHARE_SIGN_IN). */
export const SHARE_SIGN_IN_ENTITIES = signInEntities({
  entity: 'ShareRecipient',
  tables: 'share_recipient',
  recipient: () => ShareRecipient,
});
