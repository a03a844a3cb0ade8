// Limits of bulk sends (docs/operations.md, Limits): each row is a request, checked by the requests' own limits.

/** Rows (recipients, one request each) of one bulk send. */
export const MAX_BULK_SEND_ROWS = 1000;
/**
 * Rows a bulk send's job makes at once, each in its own transaction (a connection each, of the pool's): a single
 * create waits on PostgreSQL most of its time, so a few at once make the requests faster than one after the other.
 */
export const BULK_SEND_CONCURRENCY = 4;
/**
 * A running bulk send tells its subscribers (`bulkSendProgressed`) of its counts once this many rows were tried since
 * it last did, or once this long has passed with a row tried: at most one event a second and one per 50 rows.
 */
export const BULK_SEND_PROGRESS_ROWS = 50;
export const BULK_SEND_PROGRESS_MS = 1000;
/** Bytes of a bulk send's CSV upload (about 1,000 rows of a few hundred characters). */
export const MAX_BULK_SEND_CSV_BYTES = 1024 * 1024;
