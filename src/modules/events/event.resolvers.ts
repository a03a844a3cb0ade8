import { TOPIC_GRAPHQL_VALUES, type SubjectType } from '../../kernel/events/topics';
import type { Resolvers } from '../../kernel/graphql/__generated__/resolvers-types';

const EVENT_TYPES: Partial<Record<SubjectType, 'RequestEvent' | 'ItemEvent'>> = { Request: 'RequestEvent', RequestItem: 'ItemEvent' };

export const eventResolvers: Resolvers = {
  // GraphQL's REQUEST_CREATED is the topic request.created.
  WebhookTopic: TOPIC_GRAPHQL_VALUES as never,
  Event: {
    __resolveType: (event) => EVENT_TYPES[event.subjectType] ?? null,
  },
  RequestEvent: {
    request: (event) => event.subject as never,
  },
  ItemEvent: {
    item: (event) => event.subject as never,
  },
};
