import { Type } from '@sinclair/typebox';
import { topicEnumValue } from '../../kernel/events/topics';
import { TOPICS, type Topic } from '../events/event.topics';
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
  type RestWebhookFragment,
  type WebhookTopic,
} from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { inputFromBody, noContent } from '../../kernel/rest/mapping';
import { Body, listQuery, NoContent, Query, StringEnum, Text, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_ENDPOINT_LENGTH, MAX_TOPICS } from './webhook.limits';
import { DeliveryBody, restDelivery, restWebhook, WebhookBody } from './webhook.rest-shapes';

const tags = ['Webhooks'];
const IdParams = Type.Object({ id: Uuid() });
const TopicSchema = StringEnum(TOPICS, `a topic: ${TOPICS.join(', ')}`);
const Topics = Type.Array(TopicSchema, { minItems: 1, maxItems: MAX_TOPICS });

const writable = { endpoint: Text(MAX_ENDPOINT_LENGTH, { minLength: 1 }), topics: Topics };
const WebhookCreateBody = Body(writable, ['endpoint', 'topics']);
const WebhookUpdateBody = Body({
  ...writable,
  enabled: Type.Boolean({ description: 'true re-enables a disabled endpoint; false disables it' }),
});

// topicEnumValue spells the values of the GraphQL enum WebhookTopic.
const topicToGraphQL = (topic: Topic) => topicEnumValue(topic) as WebhookTopic;
const topicsToGraphQL = (topics: Topic[]) => topics.map(topicToGraphQL);

const WebhookWithSecretBody = Type.Object({ ...WebhookBody.properties, secret: Type.String() });

const withSecret = (result: { webhook?: RestWebhookFragment | null; secret?: string | null }) => ({
  ...restWebhook(result.webhook!),
  secret: result.secret!,
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
    result: (data) => ({
      body: withSecret({ webhook: fromPayload(data.webhookCreate, 'webhook'), secret: data.webhookCreate.secret }),
    }),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks',
    summary: 'List webhook subscriptions, oldest first',
    tags,
    schema: {
      querystring: Query({ limit: listQuery('asc').properties.limit, topic: TopicSchema }),
      response: withErrors({ 200: Type.Array(WebhookBody) }, [403, 422]),
    },
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
    variables: ({ params, body }) => ({
      id: params.id,
      input: inputFromBody(body ?? {}, ['endpoint', 'topics', 'enabled'], { topics: topicsToGraphQL }),
    }),
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
    result: (data) => ({
      body: withSecret({
        webhook: fromPayload(data.webhookSecretRotate, 'webhook'),
        secret: data.webhookSecretRotate.secret,
      }),
    }),
  }),
  restRow({
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    summary: 'List the deliveries to a subscription, newest first, with every attempt',
    tags,
    schema: {
      params: IdParams,
      querystring: Query({
        limit: listQuery('desc').properties.limit,
        status: StringEnum(['PENDING', 'SUCCEEDED', 'FAILED'] as const),
      }),
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
    schema: {
      params: Type.Object({ id: Uuid(), delivery_id: Uuid() }),
      response: withErrors({ 200: DeliveryBody }, [403, 404, 422]),
    },
    operation: WebhookDeliveryRetryDocument,
    variables: ({ params }) => ({ webhookId: params.id, id: params.delivery_id }),
    result: (data) => ({ body: restDelivery(fromPayload(data.webhookDeliveryRetry, 'delivery')) }),
  }),
];
