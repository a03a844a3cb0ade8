// Limits of e-signing (README, Limits).

/** Bytes of a drawn signature (the PNG, once decoded from base64). */
export const MAX_SIGNATURE_PNG_BYTES = 1024 * 1024;
/** Characters of a typed signature. */
export const MAX_SIGNATURE_TEXT = 200;
/** Characters of a TEXT field's value. */
export const MAX_FIELD_VALUE = 1000;
