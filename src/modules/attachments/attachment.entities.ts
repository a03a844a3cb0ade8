import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, User } from '../identity/identity.entities';
import { RequestItem } from '../items/item.entities';
import { Request } from '../requests/request.entities';
import { StoredFile } from '../files/file.entities';
import type { Row } from '../../kernel/db/db';

/**
 * A file that helps a recipient complete a request. Without a request it sits in its owner's library
 * (`POST /attachments`); with one it belongs to the request, or to one of its items.
 */
export const Attachment = defineEntity({
  name: 'Attachment',
  tableName: 'attachment',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    file: () => p.manyToOne(StoredFile).ref(),
    request: () => p.manyToOne(Request).ref().nullable(),
    item: () => p.manyToOne(RequestItem).ref().nullable(),
    position: p.integer(),
    createdAt: createdAt(),
  },
});
export type Attachment = InferEntity<typeof Attachment>;
/** A Attachment as read paths return it (see `Row`). */
export type AttachmentRow = Row<Attachment>;
