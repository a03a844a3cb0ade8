import { loadRequiredRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  revealSecret,
  rotateSecret,
  updateWebhook,
} from './webhook.service';
import { countFields } from '../../kernel/graphql/pagination';

export const webhookResolvers: Resolvers = {
  Query: {
    webhook: (_root, { id }, ctx) => getWebhook(ctx, id),
    webhooks: (_root, args, ctx) => listWebhooks(ctx, args),
    webhookSecret: (_root, { id }, ctx) => revealSecret(ctx, id),
  },
  Mutation: {
    webhookCreate: (_root, { input }, ctx) => payload(() => createWebhook(ctx, input)),
    webhookUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ webhook: await updateWebhook(ctx, id, input) })),
    webhookDelete: (_root, { id }, ctx) => payload(async () => ({ deletedWebhookId: await deleteWebhook(ctx, id) })),
    webhookSecretRotate: (_root, { id }, ctx) => payload(() => rotateSecret(ctx, id)),
    webhookDeliveryRetry: (_root, { id, webhookId }, ctx) =>
      payload(async () => ({ delivery: await retryDelivery(ctx, id, webhookId) })),
  },
  Webhook: {
    enabled: (webhook) => webhook.disabledAt == null,
    deliveries: (webhook, args, ctx) => listDeliveries(ctx, webhook, args),
  },
  WebhookDelivery: {
    webhook: (delivery, _args, ctx, info) => loadRequiredRef(delivery.webhook, ctx.loaders.webhookById, info),
    attemptCount: (delivery) => delivery.attempts,
    attempts: (delivery, _args, ctx) => ctx.loaders.attemptsByDelivery.load(delivery.id),
  },
  WebhookConnection: {
    ...countFields,
  },
  WebhookDeliveryConnection: {
    ...countFields,
  },
};
