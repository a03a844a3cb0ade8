import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, primeAll, type LoaderSet } from '../../kernel/db/loaders';
import type { Loaders } from '../../kernel/graphql/context';
import { Contact, Recipient } from './recipient.entities';

export const recipientLoaders = {
  // Every recipient the REST shapes show names its contact: inside a transaction (an event's render)
  // the recipients' contacts come in the recipients' round trip instead of one of their own.
  recipientsByRequest: (em: EntityManager, organizationId: string, loaders: Loaders) =>
    createChildrenLoader(em, Recipient, 'request', { position: 'asc' }, [], organizationId, {
      entity: Contact,
      sql: 'select * from contact where id in (select contact_id from recipient where request_id = any(?::uuid[]) and organization_id = ?)',
      prime: (contacts) => primeAll(loaders.contactById, contacts),
    }),
  recipientById: (em: EntityManager) => createByIdLoader(em, Recipient),
  contactById: (em: EntityManager) => createByIdLoader(em, Contact),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof recipientLoaders> {}
}
