import type { ModuleDescriptor } from '../../kernel/module';
import { Webhook, WebhookAttempt, WebhookDelivery } from './webhook.entities';
import { webhookLoaders } from './webhook.loaders';
import { webhookResolvers } from './webhook.resolvers';
import { webhookRestRows } from './webhook.rest';
import { queueDeliveries } from './webhook.service';

export const webhooksModule: ModuleDescriptor = {
  name: 'webhooks',
  entities: [Webhook, WebhookDelivery, WebhookAttempt],
  loaders: webhookLoaders,
  resolvers: webhookResolvers,
  restRows: webhookRestRows,
  emitHooks: [queueDeliveries],
};
