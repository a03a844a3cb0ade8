import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';

/** The providers an organization can connect here (the others need an OAuth flow on the internet). */
export const CONNECTABLE_PROVIDERS = ['S3'] as const;
export type ConnectableProvider = (typeof CONNECTABLE_PROVIDERS)[number];

/** The kind of the timed work's jobs that copy a request's documents to its organization's bucket. */
export const COPY_JOB_KIND = 'CLOUD_COPY';

/** An organization's own bucket, where its requests' documents are copied. */
export const CloudStorageConnection = defineEntity({
  name: 'CloudStorageConnection',
  tableName: 'cloud_storage_connection',
  properties: {
    organization: () => p.manyToOne(Organization).ref().primary(),
    provider: p.enum([...CONNECTABLE_PROVIDERS]).primary(),
    bucket: p.text(),
    region: p.text(),
    endpoint: p.text().nullable(),
    forcePathStyle: p.boolean(),
    /** `seal(secret, 'cloud-storage-credentials', JSON {accessKeyId, secretAccessKey})`. */
    sealedCredentials: p.text(),
    connectedBy: () => p.manyToOne(User).ref().nullable(),
    connectedAt: p.datetime(),
  },
});
export type CloudStorageConnection = InferEntity<typeof CloudStorageConnection>;
export type CloudStorageConnectionRow = Row<CloudStorageConnection>;
