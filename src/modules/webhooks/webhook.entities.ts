import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Topic } from '../events/event.topics';
import { Organization, User } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/db';

export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhook',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    endpoint: p.text(),
    topics: p.array<Topic>(),
    /** The signing secret, sealed with the server secret (kernel/crypto/seal.ts). */
    secretSealed: p.text(),
    previousSecretSealed: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(User).ref().nullable(),
    failingSince: p.datetime().nullable(),
    disabledAt: p.datetime().nullable(),
    disabledReason: p.text().nullable(),
    ...timestamps(),
  },
});
export type Webhook = InferEntity<typeof Webhook>;
/** A Webhook as read paths return it (see `Row`). */
export type WebhookRow = Row<Webhook>;

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    webhook: () => p.manyToOne(Webhook).ref(),
    eventId: p.uuid(),
    eventSeq: p.bigint('string'),
    topic: p.string().$type<Topic>().columnType('text'),
    status: p.enum([...DELIVERY_STATUSES]),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().nullable(),
    lockedUntil: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    ...timestamps(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
/** A WebhookDelivery as read paths return it (see `Row`). */
export type WebhookDeliveryRow = Row<WebhookDelivery>;

export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    delivery: () => p.manyToOne(WebhookDelivery).ref(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer(),
    error: p.text().nullable(),
  },
});
export type WebhookAttempt = InferEntity<typeof WebhookAttempt>;
/** A WebhookAttempt as read paths return it (see `Row`). */
export type WebhookAttemptRow = Row<WebhookAttempt>;
