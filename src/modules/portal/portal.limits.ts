// Limits of the recipient portal's sign-in (docs/operations.md, Limits; API-DECISIONS "The recipient side").

/** Digits of a one-time code. */
export const CODE_DIGITS = 6;
/** How long a one-time code is accepted, in minutes. */
export const CODE_VALID_MINUTES = 10;
/** Seconds between two code sends to one recipient. */
export const CODE_RESEND_SECONDS = 30;
/** Codes sent to one recipient in any hour. */
export const MAX_CODES_PER_HOUR = 5;
/** Wrong answers or codes in a row before the step locks. */
export const MAX_SIGN_IN_FAILURES = 5;
/** How long a locked sign-in step stays locked, in minutes. */
export const SIGN_IN_LOCK_MINUTES = 15;
/** How long a recipient session lasts, in hours (never past the request's expiration). */
export const SESSION_HOURS = 12;
/** Characters of a submission comment. */
export const MAX_SUBMISSION_COMMENT = 5000;
