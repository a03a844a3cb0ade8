// Limits of bulk sends (docs/operations.md, Limits): each row is a request, checked by the requests' own limits.

/** Rows (recipients, one request each) of one bulk send. */
export const MAX_BULK_SEND_ROWS = 1000;
/** Bytes of a bulk send's CSV upload (about 1,000 rows of a few hundred characters). */
export const MAX_BULK_SEND_CSV_BYTES = 1024 * 1024;
