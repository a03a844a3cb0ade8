// Limits of request items (docs/operations.md, Limits); template items share the text limits.

/** Characters of an item's name (at least one that is not blank). */
export const MAX_ITEM_NAME = 1000;
/** Characters of an item's description. */
export const MAX_ITEM_DESCRIPTION = 5000;
/** Characters of the answer of a question item. */
export const MAX_ANSWER = 10000;
/** Attachment ids one body may list; the configured MAX_FILES_PER_ITEM, at most this, is checked by the service. */
export const MAX_ATTACHMENT_IDS = 1000;
/** Characters of the message of a rejection (the owner's request for changes). */
export const MAX_REJECTION_MESSAGE = 5000;
/** Types (extensions and MIME types) one UPLOAD item's `accept` may list. */
export const MAX_ACCEPT_ENTRIES = 50;
/** Characters of an UPLOAD item's file name pattern. */
export const MAX_FILE_NAME_PATTERN = 200;
