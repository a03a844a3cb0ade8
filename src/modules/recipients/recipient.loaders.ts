import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Contact, Recipient } from './recipient.entities';

export const recipientLoaders = {
  recipientsByRequest: (db: Reader, organizationId: string) =>
    createChildrenLoader(db, Recipient, 'request', { position: 'asc' }, [], organizationId),
  recipientById: (db: Reader) => createByIdLoader(db, Recipient),
  contactById: (db: Reader) => createByIdLoader(db, Contact),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof recipientLoaders> {}
}
