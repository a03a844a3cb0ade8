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

/** An event's row as PostgreSQL answers `STORED_EVENT_COLUMNS`. */
export type StoredEventRow = {
  id: string;
  organization_id: string;
  topic: string;
  subject_type: string;
  subject_id: string;
  request_id: string | null;
  data: Record<string, unknown>;
  updated: string[] | null;
  created_at: Date;
};

/** The columns of the `event` table that make a StoredEvent, for the outlets that read events back. */
export const STORED_EVENT_COLUMNS =
  'id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at';

export const storedEvent = (row: StoredEventRow): StoredEvent => ({
  id: row.id,
  organizationId: row.organization_id,
  topic: row.topic,
  subjectType: row.subject_type,
  subjectId: row.subject_id,
  requestId: row.request_id,
  data: row.data,
  updated: row.updated,
  createdAt: row.created_at,
});
