// Limits of bulk sends (docs/operations.md, Limits): each row is a request, checked by the requests' own limits.

/** Rows (recipients, one request each) of one bulk send. */
export const MAX_BULK_SEND_ROWS = 1000;
/**
 * A running bulk send tells its subscribers (`bulkSendProgressed`) of its counts once this many rows were tried since
 * it last did, or once this long has passed with a row tried: at most one event a second and one per 50 rows.
 */
export const BULK_SEND_PROGRESS_ROWS = 50;
export const BULK_SEND_PROGRESS_MS = 1000;
/** Bytes of a bulk send's CSV upload (about 1,000 rows of a few hundred characters). */
export const MAX_BULK_SEND_CSV_BYTES = 1024 * 1024;
