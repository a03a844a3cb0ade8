// The event catalogue: each topic is a webhook topic (`request.created`), a GraphQL enum value
// (`REQUEST_CREATED`) and a Subscription field (`requestCreated`): one name, three spellings.

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

export const isTopic = (value: string): value is Topic => (TOPICS as readonly string[]).includes(value);

/** `request.reminder_sent` → `REQUEST_REMINDER_SENT`. */
export const topicEnumValue = (topic: Topic): string => topic.replace('.', '_').toUpperCase();

/** The GraphQL enum's values, mapped to the topics (the enum's internal values). */
export const TOPIC_GRAPHQL_VALUES = Object.fromEntries(TOPICS.map((topic) => [topicEnumValue(topic), topic])) as Record<string, Topic>;

/** `request.reminder_sent` → `requestReminderSent`. */
export const subscriptionField = (topic: Topic): string =>
  topic.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** What an event is about; its GraphQL Event type follows from it. */
export type SubjectType = 'Request' | 'RequestItem' | 'Document' | 'Contract';

/** A stored event, as the outbox holds it and every outlet reads it. */
export type StoredEvent = {
  id: string;
  seq: string;
  organizationId: string;
  topic: Topic;
  subjectType: SubjectType;
  subjectId: string;
  requestId: string | null;
  /** The record as the REST API returns it in the default revision, at the time of the event. */
  data: Record<string, unknown>;
  /** For request.updated: the REST names of the fields whose value changed. */
  updated: string[] | null;
  createdAt: Date;
};
