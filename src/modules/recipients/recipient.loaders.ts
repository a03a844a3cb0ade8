import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader } from '../../kernel/db/loaders';
import { Contact, Recipient } from './recipient.entities';

export const recipientLoaders = {
  recipientsByRequest: (em: EntityManager) => createChildrenLoader(em, Recipient, 'request', { position: 'asc' }),
  contactById: (em: EntityManager) => createByIdLoader(em, Contact),
};
