// Limits of recipients and contacts (docs/operations.md, Limits); names, emails and phones are kernel-wide.

/** Recipients of one request (at least one). */
export const MAX_RECIPIENTS = 20;
/** Characters of a recipient's security question, and of its answer. */
export const MAX_QUESTION = 1000;
