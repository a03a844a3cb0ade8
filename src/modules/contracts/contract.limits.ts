// Limits of contracts (README, Limits); signers' names, emails and phones are kernel-wide.

/**
 * Bytes of a contract upload (or MAX_UPLOAD_BYTES when lower): a document to sign, not an archive, and the preview
 * reads a PDF whole.
 */
export const MAX_CONTRACT_BYTES = 64 * 1024 * 1024;
/** Annotations of one contract, and separately fields. */
export const MAX_CONTRACT_PARTS = 200;
/** Highest page number a layout may name (from 1). */
export const MAX_CONTRACT_PAGE = 10000;
/** Points of a layout's offsets (from 0) and sizes (above 0). */
export const MAX_LAYOUT_POINTS = 100000;
/** Characters of the client's own id of an annotation or a field. */
export const MAX_PART_ID = 100;
/** Characters of an annotation's default value, and of a field's placeholder. */
export const MAX_PART_TEXT = 1000;
