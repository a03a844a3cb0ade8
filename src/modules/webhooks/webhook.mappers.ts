// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Webhook, WebhookAttempt, WebhookDelivery } from './webhook.entities';
import type { RevealedSecret } from './webhook.service';

export type WebhookMapper = Webhook;
export type WebhookDeliveryMapper = WebhookDelivery;
export type WebhookAttemptMapper = WebhookAttempt;
// The secret is shown with the endpoint it signs for.
export type WebhookSecretMapper = RevealedSecret;
