// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { WebhookRow, WebhookAttemptRow, WebhookDeliveryRow } from './webhook.entities';
import type { RevealedSecret } from './webhook.service';

export type WebhookMapper = WebhookRow;
export type WebhookDeliveryMapper = WebhookDeliveryRow;
export type WebhookAttemptMapper = WebhookAttemptRow;
// The secret is shown with the endpoint it signs for.
export type WebhookSecretMapper = RevealedSecret;
