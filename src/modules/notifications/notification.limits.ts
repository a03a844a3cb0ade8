// Limits of notifications (docs/operations.md, Limits).

/**
 * When a message that could not be handed over is tried again, after its first, second... failure:
 * about nine hours in all, since a mail an hour late still helps and one a day late mostly does not;
 * then it is marked FAILED.
 */
export const NOTIFICATION_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const NOTIFICATION_MAX_ATTEMPTS = NOTIFICATION_RETRY_DELAYS_MS.length + 1;
/** The longest wait a carrier's `Retry-After` may ask before a message's next attempt (a longer one is cut to it). */
export const MAX_RETRY_AFTER_MS = 21_600_000;
/** Connections to the mail server per instance: its jobs that send mail at once share them. */
export const NOTIFICATION_CONCURRENCY = 5;
/**
 * Messages one job takes when an event queues several (a request's invitations): one read and one record for them all,
 * handed over NOTIFICATION_CONCURRENCY at a time.
 */
export const NOTIFICATIONS_PER_JOB = 25;
/** Time the mail server has to connect, greet and answer each command. */
export const NOTIFICATION_SEND_TIMEOUT_MS = 30_000;
/** Characters of a subject; a longer one (a long request name) is cut with an ellipsis. */
export const MAX_SUBJECT_LENGTH = 200;
/** Characters of a text or HTML part; a larger message is not sent (FAILED). */
export const MAX_BODY_LENGTH = 100_000;
/** Characters of an SMS; a longer one is not sent (FAILED). */
export const MAX_SMS_LENGTH = 640;
/** Characters of the last error kept on a message. */
export const MAX_NOTIFICATION_ERROR = 500;
