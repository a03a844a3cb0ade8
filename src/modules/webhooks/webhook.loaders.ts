import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Webhook, WebhookAttempt } from './webhook.entities';

export const webhookLoaders = {
  webhookById: (db: Reader) => createByIdLoader(db, Webhook),
  attemptsByDelivery: (db: Reader) => createChildrenLoader(db, WebhookAttempt, 'delivery', { attemptedAt: 'asc' }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof webhookLoaders> {}
}
