import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';
import { Template } from '../templates/template.entities';

export const BULK_SEND_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type BulkSendStatus = (typeof BULK_SEND_STATUSES)[number];

/** One template sent to many recipients: a request per row, made by a job (bulk-send.task.ts). */
export const BulkSend = defineEntity({
  name: 'BulkSend',
  tableName: 'bulk_send',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    template: () => p.manyToOne(Template).ref().nullable(),
    owner: () => p.manyToOne(User).ref(),
    status: p.enum([...BULK_SEND_STATUSES]),
    total: p.integer(),
    created: p.integer().default(0),
    failed: p.integer().default(0),
    idempotencyKey: p.text(),
    ...timestamps(),
    completedAt: p.datetime().nullable(),
  },
});
export type BulkSend = InferEntity<typeof BulkSend>;
export type BulkSendRow = Row<BulkSend>;
