import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, Team, User } from '../identity/identity.entities';
import { LANGUAGES } from '../requests/request.enums';
import { AUTH_METHODS, SEND_METHODS } from './recipient.enums';
import { Request } from '../requests/request.entities';
import type { Row } from '../../kernel/db/db';

/** A person the owner sends requests to; recipients of a request become contacts of its owner. */
export const Contact = defineEntity({
  name: 'Contact',
  tableName: 'contact',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    team: () => p.manyToOne(Team).ref().nullable(),
    firstName: p.string().length(100).nullable(),
    lastName: p.string().length(100).nullable(),
    email: p.string().length(320).nullable(),
    phone: p.string().length(32).nullable(),
    language: p.enum([...LANGUAGES]).nullable(),
    ...timestamps(),
  },
});
export type Contact = InferEntity<typeof Contact>;
/** A Contact as read paths return it (see `Row`). */
export type ContactRow = Row<Contact>;

export const Recipient = defineEntity({
  name: 'Recipient',
  tableName: 'recipient',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    contact: () => p.manyToOne(Contact).ref(),
    position: p.integer(),
    firstName: p.string().length(100).nullable(),
    lastName: p.string().length(100).nullable(),
    email: p.string().length(320).nullable(),
    phone: p.string().length(32).nullable(),
    language: p.enum([...LANGUAGES]).nullable(),
    authMethod: p.enum([...AUTH_METHODS]),
    sendMethod: p.enum([...SEND_METHODS]),
    questionText: p.text().nullable(),
    questionAnswerHash: p.string().length(64).columnType('char(64)').nullable(),
    linkNonce: p.string().length(64),
    tokenHash: p.string().length(64).columnType('char(64)'),
    passwordHash: p.string().length(64).columnType('char(64)'),
    createdAt: createdAt(),
  },
});
export type Recipient = InferEntity<typeof Recipient>;
/** A Recipient as read paths return it (see `Row`). */
export type RecipientRow = Row<Recipient>;
