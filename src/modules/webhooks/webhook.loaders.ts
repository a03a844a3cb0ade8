import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Webhook, WebhookAttempt } from './webhook.entities';

export const webhookLoaders = {
  webhookById: (em: EntityManager) => createByIdLoader(em, Webhook),
  attemptsByDelivery: (em: EntityManager) =>
    createChildrenLoader(em, WebhookAttempt, 'delivery', { attemptedAt: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof webhookLoaders> {}
}
