import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader } from '../../kernel/db/loaders';
import { Contact, Recipient } from './recipient.entities';

export function createRecipientLoaders(em: EntityManager) {
  return {
    recipientsByRequest: createChildrenLoader(em, Recipient, 'request', { position: 'asc' }),
    contactById: createByIdLoader(em, Contact),
  };
}
