import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Contact, Recipient } from './recipient.entities';

export const recipientLoaders = {
  recipientsByRequest: (em: EntityManager, organizationId: string) => createChildrenLoader(em, Recipient, 'request', { position: 'asc' }, [], organizationId),
  recipientById: (em: EntityManager) => createByIdLoader(em, Recipient),
  contactById: (em: EntityManager) => createByIdLoader(em, Contact),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof recipientLoaders> {}
}
