// Limits of resumable (tus) uploads (docs/operations.md, Limits); the size of one file is MAX_UPLOAD_BYTES.

/** Hours an unfinished upload is kept for resuming, counted from its creation; then it is deleted. */
export const PARTIAL_UPLOAD_EXPIRY_HOURS = 24;
/** Unfinished uploads one recipient link may hold at once (each reserves up to MAX_UPLOAD_BYTES of disk). */
export const MAX_PARTIAL_UPLOADS = 20;
/** Default of UNFINISHED_UPLOAD_BYTES_ORGANIZATION: declared bytes of one organization's unfinished uploads. */
export const DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION = 10 * 2 ** 30;
/** Default of UNFINISHED_UPLOAD_BYTES: declared bytes of all unfinished uploads together. */
export const DEFAULT_UNFINISHED_UPLOAD_BYTES = 50 * 2 ** 30;
