// Limits of file sharing (docs/operations.md, Limits). A file's own size is MAX_UPLOAD_BYTES (configuration).

/** Characters of a share's title. */
export const MAX_SHARE_TITLE = 255;
/** Characters of a share's custom message. */
export const MAX_SHARE_MESSAGE = 5000;
/** Characters of a recipient's security question, and of its answer. */
export const MAX_SHARE_QUESTION = 500;
/** Recipients of one share. */
export const MAX_SHARE_RECIPIENTS = 50;
/** Files of one share. */
export const MAX_SHARE_FILES = 100;
/** Bytes of all the files of one share together (1 GiB). */
export const MAX_SHARE_BYTES = 1024 * 1024 * 1024;
/** Downloads a share's REST body lists (newest first); GraphQL pages through them all. */
export const MAX_LISTED_DOWNLOADS = 100;
