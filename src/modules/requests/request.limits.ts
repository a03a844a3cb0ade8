// Limits of requests (docs/operations.md, Limits). Templates share the personal message and reminders limits.

/** Characters of a request's name (at least one that is not blank). */
export const MAX_REQUEST_NAME = 255;
/** Characters of the personal message of a request or a template. */
export const MAX_PERSONAL_MESSAGE = 5000;
/** Characters of a request's notes. */
export const MAX_NOTES = 10000;
/** Characters of a request's cloud storage folder. */
export const MAX_CLOUD_STORAGE_FOLDER = 1000;
/** Keys of a request's user_metadata. */
export const MAX_METADATA_KEYS = 50;
/** Characters of one user_metadata key (at least one). */
export const MAX_METADATA_KEY = 100;
/** Characters of one user_metadata value. */
export const MAX_METADATA_VALUE = 1000;
/** Entries of a request's reminder schedule. */
export const MAX_REMINDER_SCHEDULE = 20;
/** Characters of the message of one reminder schedule entry. */
export const MAX_REMINDER_MESSAGE = 2000;
/** Items of one request, at creation and through POST …/items. */
export const MAX_ITEMS = 100;
/** Collaborators of one request. */
export const MAX_COLLABORATORS = 20;
/** Fewest days between reminders of a request or a template (-1: no reminders). */
export const MIN_REMINDERS = -1;
/** Most days between reminders of a request or a template. */
export const MAX_REMINDERS = 365;
/** Characters of a request list's `search` text. */
export const MAX_REQUEST_SEARCH = 200;
