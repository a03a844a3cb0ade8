import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, User } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/db';

/** Bytes in storage, as measured and sniffed while they were stored. */
export const StoredFile = defineEntity({
  name: 'StoredFile',
  tableName: 'stored_file',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    storageKey: p.string().length(200),
    name: p.string().length(255),
    size: p.integer(),
    sha256: p.string().length(64).columnType('char(64)'),
    /** Detected from the content; what the client claimed is kept beside it, never trusted. */
    mimeType: p.string().length(255),
    claimedMimeType: p.string().length(255).nullable(),
    createdBy: () => p.manyToOne(User).ref().nullable(),
    createdAt: createdAt(),
  },
});
export type StoredFile = InferEntity<typeof StoredFile>;
/** A StoredFile as read paths return it (see `Row`). */
export type StoredFileRow = Row<StoredFile>;
