import type { ModuleDescriptor } from '../../kernel/module';
import { Webhook, WebhookAttempt, WebhookDelivery } from './webhook.entities';
import { webhookLoaders } from './webhook.loaders';
import { webhookResolvers } from './webhook.resolvers';
import { webhookRestRows } from './webhook.rest';
import { isAdmin } from '../identity/viewer';
import { getWebhook, webhooksConsumer } from './webhook.service';
import { webhookMetrics } from './webhook.metrics';

export const webhooksModule: ModuleDescriptor = {
  name: 'webhooks',
  entities: [Webhook, WebhookDelivery, WebhookAttempt],
  loaders: webhookLoaders,
  resolvers: webhookResolvers,
  restRows: webhookRestRows,
  // Webhooks are the ADMIN's: to a USER they do not exist.
  nodes: {
    Webhook: {
      sql: 'select 1 from webhook where id = ? and organization_id = ?',
      load: async (ctx, id) => (isAdmin(ctx.viewer) ? getWebhook(ctx, id) : null),
    },
    WebhookDelivery: {
      sql: 'select 1 from webhook_delivery d join webhook w on w.id = d.webhook_id where d.id = ? and w.organization_id = ?',
      load: async (ctx, id) =>
        isAdmin(ctx.viewer)
          ? ((await ctx.db.records(WebhookDelivery, 'select * from webhook_delivery where id = ?', [id]))[0] ?? null)
          : null,
    },
  },
  consumers: [webhooksConsumer],
  metrics: webhookMetrics,
};
