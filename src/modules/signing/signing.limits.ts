// Limits of e-signing (docs/operations.md, Limits).

/** Bytes of a drawn signature (the PNG, once decoded from base64). */
export const MAX_SIGNATURE_PNG_BYTES = 1024 * 1024;
/**
 * Pixels of a drawn signature: pdf-lib decodes the whole image, and a small PNG can hold a huge one
 * (a canvas of 1800 by 600, a phone's at three device pixels per CSS pixel, is 1.08 million).
 */
export const MAX_SIGNATURE_PNG_PIXELS = 4_000_000;
/** Characters of a typed signature. */
export const MAX_SIGNATURE_TEXT = 200;
/** Characters of a TEXT field's value. */
export const MAX_FIELD_VALUE = 1000;
