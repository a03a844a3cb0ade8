import { Type } from '@sinclair/typebox';
import { TOPIC_GRAPHQL_VALUES } from '../events/event.topics';
import type { RestDeliveryFragment, RestWebhookFragment } from '../../generated/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';

// The REST shapes of webhook subscriptions and their deliveries; topics by their REST names
// (`request.created`).

export const { schema: WebhookBody, map: restWebhook } = restShape((field: Field<RestWebhookFragment>) => ({
  id: Type.String(),
  endpoint: Type.String(),
  topics: field(Type.Array(Type.String()), (webhook) => webhook.topics.map((topic) => TOPIC_GRAPHQL_VALUES[topic])),
  enabled: Type.Boolean(),
  disabled_at: Nullable(Type.String()),
  disabled_reason: Nullable(Type.String()),
  failing_since: Nullable(Type.String()),
  previous_secret_expires_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
}));

const Attempt = restShape((_field: Field<RestDeliveryFragment['attempts'][number]>) => ({
  attempted_at: Type.String(),
  status_code: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error: Nullable(Type.String()),
}));

export const { schema: DeliveryBody, map: restDelivery } = restShape((field: Field<RestDeliveryFragment>) => ({
  id: Type.String(),
  webhook_id: field(Type.String(), (delivery) => delivery.webhook.id),
  event_id: Type.String(),
  topic: field(Type.String(), (delivery) => TOPIC_GRAPHQL_VALUES[delivery.topic]),
  status: Type.String(),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Type.String()),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  attempts: field(Type.Array(Attempt.schema), (delivery) => delivery.attempts.map(Attempt.map)),
}));
