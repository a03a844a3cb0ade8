import { TOPIC_GRAPHQL_VALUES, type SubjectType } from '../../kernel/events/topics';
import type { Resolvers } from '../../kernel/graphql/__generated__/resolvers-types';

const EVENT_TYPES = { Request: 'RequestEvent', RequestItem: 'ItemEvent', Document: 'DocumentEvent', Contract: 'ContractEvent' } as const satisfies Record<SubjectType, string>;

export const eventResolvers: Resolvers = {
  // GraphQL's REQUEST_CREATED is the topic request.created.
  WebhookTopic: TOPIC_GRAPHQL_VALUES as never,
  Event: {
    __resolveType: (event) => EVENT_TYPES[event.subjectType],
  },
  RequestEvent: {
    request: (event) => event.subject as never,
  },
  ItemEvent: {
    item: (event) => event.subject as never,
  },
  DocumentEvent: {
    document: (event) => event.subject as never,
  },
  ContractEvent: {
    contract: (event) => event.subject as never,
  },
};
