// A topic is a webhook topic (`request.created`), a GraphQL enum value (`REQUEST_CREATED`) and a
// Subscription field (`requestCreated`): one name, three spellings. The catalogue of topics belongs
// to the events module; the kernel knows only the spellings.

/** `request.reminder_sent` → `REQUEST_REMINDER_SENT`. */
export const topicEnumValue = (topic: string): string => topic.replace('.', '_').toUpperCase();

/** `request.reminder_sent` → `requestReminderSent`. */
export const subscriptionField = (topic: string): string =>
  topic.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** A stored event, as the outbox holds it and every outlet reads it. */
export type StoredEvent = {
  id: string;
  organizationId: string;
  topic: string;
  /** What the event is about (`Request`): a subject type a module declares. */
  subjectType: string;
  subjectId: string;
  requestId: string | null;
  /** The record as the REST API returns it in the default revision, at the time of the event. */
  data: Record<string, unknown>;
  /** For request.updated: the REST names of the fields whose value changed. */
  updated: string[] | null;
  createdAt: Date;
};
