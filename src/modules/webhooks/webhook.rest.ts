import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { topicEnumValue } from '../../kernel/events/topics';
import { TOPICS, type Topic } from '../events/event.topics';
import type {
  RestWebhookFragment,
  WebhookCreateMutation,
  WebhookDeleteMutation,
  WebhookDeliveryListQuery,
  WebhookDeliveryRetryMutation,
  WebhookGetQuery,
  WebhookListQuery,
  WebhookSecretGetQuery,
  WebhookSecretRotateMutation,
  WebhookUpdateMutation,
} from '../../kernel/graphql/__generated__/operations';
import { found, fromPayload, type RestRow } from '../../kernel/rest/engine';
import { inputFromBody, noContent } from '../../kernel/rest/mapping';
import { loadOperations } from '../../kernel/rest/operations';
import { Body, listQuery, NoContent, Query, StringEnum, Text, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_ENDPOINT_LENGTH, MAX_TOPICS } from './webhook.limits';
import { DeliveryBody, restDelivery, restWebhook, WebhookBody } from './webhook.rest-shapes';

const operations = loadOperations(join(__dirname, 'webhook.operations.graphql'));

const tags = ['Webhooks'];
const IdParams = Type.Object({ id: Uuid() });
const TopicSchema = StringEnum(TOPICS, `a topic: ${TOPICS.join(', ')}`);
const Topics = Type.Array(TopicSchema, { minItems: 1, maxItems: MAX_TOPICS });

const writable = { endpoint: Text(MAX_ENDPOINT_LENGTH, { minLength: 1 }), topics: Topics };
const WebhookCreateBody = Body(writable, ['endpoint', 'topics']);
const WebhookUpdateBody = Body({ ...writable, enabled: Type.Boolean({ description: 'true re-enables a disabled endpoint; false disables it' }) });

const topicsToGraphQL = (topics: Topic[]) => topics.map(topicEnumValue);

const WebhookWithSecretBody = Type.Object({ ...WebhookBody.properties, secret: Type.String() });

const withSecret = (result: { webhook?: RestWebhookFragment | null; secret?: string | null }) => ({ ...restWebhook(result.webhook!), secret: result.secret! });

export const webhookRestRows: RestRow[] = [
  {
    method: 'POST',
    url: '/webhooks',
    summary: 'Subscribe an endpoint to topics (answers the signing secret)',
    tags,
    schema: { body: WebhookCreateBody, response: withErrors({ 200: WebhookWithSecretBody }, [403, 422]) },
    operation: operations.WebhookCreate,
    variables: ({ body }) => ({ input: { endpoint: body.endpoint, topics: topicsToGraphQL(body.topics) } }),
    result: (data: WebhookCreateMutation) => ({ body: withSecret({ webhook: fromPayload(data.webhookCreate, 'webhook'), secret: data.webhookCreate.secret }) }),
  },
  {
    method: 'GET',
    url: '/webhooks',
    summary: 'List webhook subscriptions, oldest first',
    tags,
    schema: { querystring: Query({ limit: listQuery('asc').properties.limit, topic: TopicSchema }), response: withErrors({ 200: Type.Array(WebhookBody) }, [403, 422]) },
    operation: operations.WebhookList,
    variables: ({ query }) => ({ first: query.limit, topic: query.topic ? topicEnumValue(query.topic) : null }),
    result: (data: WebhookListQuery) => ({ body: data.webhooks.nodes.map(restWebhook) }),
  },
  {
    method: 'GET',
    url: '/webhooks/:id',
    summary: 'Get a webhook subscription',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookBody }, [403, 404, 422]) },
    operation: operations.WebhookGet,
    variables: ({ params }) => ({ id: params.id }),
    result: (data: WebhookGetQuery) => ({ body: restWebhook(found(data.webhook, 'Webhook')) }),
  },
  {
    method: 'PATCH',
    url: '/webhooks/:id',
    summary: "Change a subscription's endpoint or topics, or enable or disable it",
    tags,
    schema: { params: IdParams, body: WebhookUpdateBody, response: withErrors({ 200: WebhookBody }, [403, 404, 422]) },
    operation: operations.WebhookUpdate,
    variables: ({ params, body }) => ({ id: params.id, input: inputFromBody(body ?? {}, ['endpoint', 'topics', 'enabled'], { topics: topicsToGraphQL }) }),
    result: (data: WebhookUpdateMutation) => ({ body: restWebhook(fromPayload(data.webhookUpdate, 'webhook')) }),
  },
  {
    method: 'DELETE',
    url: '/webhooks/:id',
    summary: 'Delete a webhook subscription',
    tags,
    schema: { params: IdParams, response: withErrors({ 204: NoContent }, [403, 404, 422]) },
    operation: operations.WebhookDelete,
    variables: ({ params }) => ({ id: params.id }),
    result: (data: WebhookDeleteMutation) => noContent(data.webhookDelete, 'deletedWebhookId'),
  },
  {
    method: 'GET',
    url: '/webhooks/:id/secret',
    summary: 'Get a subscription with its signing secret',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookWithSecretBody }, [403, 404, 422]) },
    operation: operations.WebhookSecretGet,
    variables: ({ params }) => ({ id: params.id }),
    result: (data: WebhookSecretGetQuery) => ({ body: withSecret(found(data.webhookSecret, 'Webhook')) }),
  },
  {
    method: 'POST',
    url: '/webhooks/:id/secret/rotate',
    summary: 'Replace the signing secret (the previous one also signs during the grace period)',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: WebhookWithSecretBody }, [403, 404, 422]) },
    operation: operations.WebhookSecretRotate,
    variables: ({ params }) => ({ id: params.id }),
    result: (data: WebhookSecretRotateMutation) => ({ body: withSecret({ webhook: fromPayload(data.webhookSecretRotate, 'webhook'), secret: data.webhookSecretRotate.secret }) }),
  },
  {
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    summary: 'List the deliveries to a subscription, newest first, with every attempt',
    tags,
    schema: {
      params: IdParams,
      querystring: Query({ limit: listQuery('desc').properties.limit, status: StringEnum(['PENDING', 'SUCCEEDED', 'FAILED'] as const) }),
      response: withErrors({ 200: Type.Array(DeliveryBody) }, [403, 404, 422]),
    },
    operation: operations.WebhookDeliveryList,
    variables: ({ params, query }) => ({ id: params.id, first: query.limit, status: query.status ?? null }),
    result: (data: WebhookDeliveryListQuery) => ({ body: found(data.webhook, 'Webhook').deliveries.nodes.map(restDelivery) }),
  },
  {
    method: 'POST',
    url: '/webhooks/:id/deliveries/:delivery_id/retry',
    summary: 'Send a delivery again now',
    tags,
    schema: { params: Type.Object({ id: Uuid(), delivery_id: Uuid() }), response: withErrors({ 200: DeliveryBody }, [403, 404, 422]) },
    operation: operations.WebhookDeliveryRetry,
    variables: ({ params }) => ({ webhookId: params.id, id: params.delivery_id }),
    result: (data: WebhookDeliveryRetryMutation) => ({ body: restDelivery(fromPayload(data.webhookDeliveryRetry, 'delivery')) }),
  },
];
