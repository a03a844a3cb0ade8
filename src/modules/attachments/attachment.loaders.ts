import type { EntityManager } from '@mikro-orm/postgresql';
import { createChildrenLoader } from '../../kernel/db/loaders';
import { Attachment } from './attachment.entities';

export function createAttachmentLoaders(em: EntityManager) {
  return {
    attachmentsByItem: createChildrenLoader(em, Attachment, 'item', { position: 'asc' }),
    // A request's own attachments, not its items'.
    attachmentsByRequest: createChildrenLoader(em, Attachment, 'request', { position: 'asc' }, { item: null }),
  };
}
