import { Type } from '@sinclair/typebox';
import { TOPIC_GRAPHQL_VALUES, topicEnumValue, TOPICS, type Topic } from '../../kernel/events/topics';
import {
  WebhookCreateDocument,
  WebhookDeleteDocument,
  WebhookDeliveryListDocument,
  WebhookDeliveryRetryDocument,
  WebhookGetDocument,
  WebhookListDocument,
  WebhookSecretGetDocument,
  WebhookSecretRotateDocument,
  WebhookUpdateDocument,
  type RestDeliveryFragment,
  type RestWebhookFragment,
  type WebhookTopic,
} from '../../kernel/graphql/__generated__/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { inputFromBody, noContent } from '../../kernel/rest/mapping';
import { Body, listQuery, NoContent, Nullable, Query, StringEnum, Text, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_ENDPOINT_LENGTH } from './webhook.endpoint';
import { MAX_TOPICS } from './webhook.service';


const tags = ['Webhooks'];
const IdParams = Type.Object({ id: Uuid() });
const TopicSchema = StringEnum(TOPICS, `a topic: ${TOPICS.join(', ')}`);
const Topics = Type.Array(TopicSchema, { minItems: 1, maxItems: MAX_TOPICS });

const writable = { endpoint: Text(MAX_ENDPOINT_LENGTH, { minLength: 1 }), topics: Topics };
const WebhookCreateBody = Body(writable, ['endpoint', 'topics']);
const WebhookUpdateBody = Body({ ...writable, enabled: Type.Boolean({ description: 'true re-enables a disabled endpoint; false disables it' }) });

// topicEnumValue spells the values of the GraphQL enum WebhookTopic.
const topicToGraphQL = (topic: Topic) => topicEnumValue(topic) as WebhookTopic;
const topicsToGraphQL = (topics: Topic[]) => topics.map(topicToGraphQL);

const WebhookBody = Type.Object({
  id: Type.String(),
  endpoint: Type.String(),
  topics: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_at: Nullable(Type.String()),
  disabled_reason: Nullable(Type.String()),
  failing_since: Nullable(Type.String()),
  previous_secret_expires_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});
const WebhookWithSecretBody = Type.Object({ ...WebhookBody.properties, secret: Type.String() });

const restWebhook = (webhook: RestWebhookFragment) => ({
  id: webhook.id,
  endpoint: webhook.endpoint,
  topics: webhook.topics.map((topic) => TOPIC_GRAPHQL_VALUES[topic]),
  enabled: webhook.enabled,
  disabled_at: webhook.disabledAt,
  disabled_reason: webhook.disabledReason,
  failing_since: webhook.failingSince,
  previous_secret_expires_at: webhook.previousSecretExpiresAt,
  created_at: webhook.createdAt,
  updated_at: webhook.updatedAt,
});

const withSecret = (result: { webhook?: RestWebhookFragment | null; secret?: string | null }) => ({ ...restWebhook(result.webhook!), secret: result.secret! });

const DeliveryBody = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event_id: Type.String(),
  topic: Type.String(),
  status: Type.String(),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Type.String()),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  attempts: Type.Array(
    Type.Object({ attempted_at: Type.String(), status_code: Nullable(Type.Integer()), latency_ms: Type.Integer(), error: Nullable(Type.String()) }),
  ),
});

const restDelivery = (delivery: RestDeliveryFragment) => ({
  id: delivery.id,
  webhook_id: delivery.webhook.id,
  event_id: delivery.eventId,
  topic: TOPIC_GRAPHQL_VALUES[delivery.topic],
  status: delivery.status,
  attempt_count: delivery.attemptCount,
  next_attempt_at: delivery.nextAttemptAt,
  last_status_code: delivery.lastStatusCode,
  last_error: delivery.lastError,
  created_at: delivery.createdAt,
  updated_at: delivery.updatedAt,
  attempts: delivery.attempts.map((a) => ({ attempted_at: a.attemptedAt, status_code: a.statusCode, latency_ms: a.latencyMs, error: a.error })),
});

export const webhookRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/webhooks',
    summary: 'Subscribe an endpoint to topics (answers the signing secret)',
    tags,
    schema: { body: WebhookCreateBody, response: withErrors({ 200: WebhookWithSecretBody }, [403, 422]) },
    operation: WebhookCreateDocument,
    variables: ({ body }) => ({ input: { endpoint: body.endpoint, topics: topicsToGraphQL(body.topics) } }),
    result: (data) => ({ body: withSecret({ webhook: fromPayload(data.webhookCreate, 'webhook'), secret: data.webhookCreate.secret }) }),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks',
    summary: 'List webhook subscriptions, oldest first',
    tags,
    schema: { querystring: Query({ limit: listQuery('asc').properties.limit, topic: TopicSchema }), response: withErrors({ 200: Type.Array(WebhookBody) }, [403, 422]) },
    operation: WebhookListDocument,
    variables: ({ query }) => ({ first: query.limit, topic: query.topic ? topicToGraphQL(query.topic) : null }),
    result: (data) => ({ body: data.webhooks.nodes.map(restWebhook) }),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks/:id',
    summary: 'Get a webhook subscription',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookBody }, [403, 404, 422]) },
    operation: WebhookGetDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => ({ body: restWebhook(found(data.webhook, 'Webhook')) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/webhooks/:id',
    summary: "Change a subscription's endpoint or topics, or enable or disable it",
    tags,
    schema: { params: IdParams, body: WebhookUpdateBody, response: withErrors({ 200: WebhookBody }, [403, 404, 422]) },
    operation: WebhookUpdateDocument,
    variables: ({ params, body }) => ({ id: params.id, input: inputFromBody(body ?? {}, ['endpoint', 'topics', 'enabled'], { topics: topicsToGraphQL }) }),
    result: (data) => ({ body: restWebhook(fromPayload(data.webhookUpdate, 'webhook')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/webhooks/:id',
    summary: 'Delete a webhook subscription',
    tags,
    schema: { params: IdParams, response: withErrors({ 204: NoContent }, [403, 404, 422]) },
    operation: WebhookDeleteDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => noContent(data.webhookDelete, 'deletedWebhookId'),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks/:id/secret',
    summary: 'Get a subscription with its signing secret',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookWithSecretBody }, [403, 404, 422]) },
    operation: WebhookSecretGetDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => ({ body: withSecret(found(data.webhookSecret, 'Webhook')) }),
  }),
  restRow({
    method: 'POST',
    url: '/webhooks/:id/secret/rotate',
    summary: 'Replace the signing secret (the previous one also signs during the grace period)',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookWithSecretBody }, [403, 404, 422]) },
    operation: WebhookSecretRotateDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => ({ body: withSecret({ webhook: fromPayload(data.webhookSecretRotate, 'webhook'), secret: data.webhookSecretRotate.secret }) }),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    summary: 'List the deliveries to a subscription, newest first, with every attempt',
    tags,
    schema: {
      params: IdParams,
      querystring: Query({ limit: listQuery('desc').properties.limit, status: StringEnum(['PENDING', 'SUCCEEDED', 'FAILED'] as const) }),
      response: withErrors({ 200: Type.Array(DeliveryBody) }, [403, 404, 422]),
    },
    operation: WebhookDeliveryListDocument,
    variables: ({ params, query }) => ({ id: params.id, first: query.limit, status: query.status ?? null }),
    result: (data) => ({ body: found(data.webhook, 'Webhook').deliveries.nodes.map(restDelivery) }),
  }),
  restRow({
    method: 'POST',
    url: '/webhooks/:id/deliveries/:delivery_id/retry',
    summary: 'Send a delivery again now',
    tags,
    schema: { params: Type.Object({ id: Uuid(), delivery_id: Uuid() }), response: withErrors({ 200: DeliveryBody }, [403, 404, 422]) },
    operation: WebhookDeliveryRetryDocument,
    variables: ({ params }) => ({ webhookId: params.id, id: params.delivery_id }),
    result: (data) => ({ body: restDelivery(fromPayload(data.webhookDeliveryRetry, 'delivery')) }),
  }),
];
