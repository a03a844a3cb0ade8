import { topicEnumValue } from '../../kernel/events/topics';

// The event catalogue (API-DECISIONS, "Webhooks"): every topic a webhook may subscribe to and a
// subscription may stream. The modules that emit them import it; it imports no module.
export const TOPICS = [
  'request.created',
  'request.updated',
  'request.deleted',
  'request.closed',
  'request.submitted',
  'request.completed',
  'request.verified',
  'request.rejected',
  'request.expired',
  'request.reminder_sent',
  'item.created',
  'item.updated',
  'item.deleted',
  'item.verified',
  'document.uploaded',
  'contract.signed',
] as const;

export type Topic = (typeof TOPICS)[number];

/** The GraphQL enum's values, mapped to the topics (the enum's internal values). */
export const TOPIC_GRAPHQL_VALUES = Object.fromEntries(TOPICS.map((topic) => [topicEnumValue(topic), topic])) as Record<string, Topic>;
