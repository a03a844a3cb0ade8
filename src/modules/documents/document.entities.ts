import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { RequestItem } from '../items/item.entities';
import { Request } from '../requests/request.entities';
import { StoredFile } from '../files/file.entities';
import { Organization } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/db';
import { Recipient } from '../recipients/recipient.entities';

/** A file submitted to an item of a request. */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'document',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    item: () => p.manyToOne(RequestItem).ref(),
    file: () => p.manyToOne(StoredFile).ref(),
    /** The recipient who submitted it; null when the owner's API added it. */
    recipient: () => p.manyToOne(Recipient).ref().nullable(),
    createdAt: createdAt(),
  },
});
export type Document = InferEntity<typeof Document>;
/** A Document as read paths return it (see `Row`). */
export type DocumentRow = Row<Document>;
