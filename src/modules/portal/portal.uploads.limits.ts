// Limits of resumable (tus) uploads (README, Limits); the size of one file is MAX_UPLOAD_BYTES.

/** Hours an unfinished upload is kept for resuming, counted from its creation; then it is deleted. */
export const PARTIAL_UPLOAD_EXPIRY_HOURS = 24;
/** Unfinished uploads one recipient link may hold at once (each reserves up to MAX_UPLOAD_BYTES of disk). */
export const MAX_PARTIAL_UPLOADS = 20;
