import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader } from '../../kernel/db/loaders';
import { Webhook, WebhookAttempt } from './webhook.entities';

export function createWebhookLoaders(em: EntityManager) {
  return {
    webhookById: createByIdLoader(em, Webhook),
    attemptsByDelivery: createChildrenLoader(em, WebhookAttempt, 'delivery', { attemptedAt: 'asc' }),
  };
}
