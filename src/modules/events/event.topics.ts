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

/**
 * Topics streamed to subscribers and never to webhooks (docs/graphql.md, "Bulk sends"): a bulk send's progress is
 * for an owner watching it, and each request it makes already tells webhooks `request.created`. They are no
 * `WebhookTopic`, so `events(topics:)` does not stream them.
 */
export const SUBSCRIPTION_ONLY_TOPICS = ['bulk_send.progressed', 'bulk_send.completed'] as const;

/**
 * What the activity log records besides the topics: a draft sent and a link regenerated (events whose
 * topic is `request.updated`, as is the expiration warning), what recipients do that no webhook hears of,
 * and what timed work decides (a reminder deferred, a bounced reminder sent on the other channel, an escalation, a
 * closed request's documents deleted after the organization's `retention_days`, a copy of the documents
 * to the organization's cloud storage).
 */
export const OTHER_ACTIONS = [
  'request.sent',
  'link.regenerated',
  'recipient.opened',
  'recipient.signed_in',
  'request.expiration_warning',
  'reminder.deferred',
  'reminder.sms_fallback',
  'reminder.email_fallback',
  'escalation.fired',
  'request.retention_deleted',
  'cloud_storage.copied',
  'cloud_storage.copy_failed',
  'cloud_storage.copy_skipped',
] as const;

/** An entry of the activity log: a topic, or one of the other actions. */
export type Action = Topic | (typeof OTHER_ACTIONS)[number];

/** The GraphQL enum's values, mapped to the topics (the enum's internal values). */
export const TOPIC_GRAPHQL_VALUES = Object.fromEntries(TOPICS.map((topic) => [topicEnumValue(topic), topic])) as Record<
  string,
  Topic
>;
