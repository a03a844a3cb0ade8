import type { ModuleDescriptor } from '../../kernel/module';
import { TOPIC_GRAPHQL_VALUES } from './event.topics';

export const eventsModule: ModuleDescriptor = {
  name: 'events',
  // GraphQL's REQUEST_CREATED is the topic request.created.
  resolvers: { WebhookTopic: TOPIC_GRAPHQL_VALUES },
};
