// Limits every module shares. Each module keeps its own in `<noun>.limits.ts`; the README's Limits
// table is generated from these files (`npm run docs:limits`). Limits a deployment may change are
// configuration instead (src/config/config.ts).

/** Page size of a list when the client names none (REST `limit`, GraphQL `first`/`last`). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest page size a list answers. */
export const MAX_PAGE_SIZE = 100;

/** Deepest nesting of a GraphQL document; deeper than any of our own documents need. */
export const MAX_QUERY_DEPTH = 12;
/** Deepest nesting of a JSON body, refused before it reaches a schema. */
export const MAX_JSON_DEPTH = 64;

/** Events that may wait for one subscriber (not yet written to its socket) before it is cut off. */
export const MAX_PENDING_EVENTS = 1000;
/** Largest WebSocket message a client may send. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** Characters of an email address (RFC 5321's limit on a path). */
export const MAX_EMAIL = 320;
/** Characters of a phone number. */
export const MAX_PHONE = 32;
/** Characters of a person's first name, and of a last name (recipients, contacts, users, signers). */
export const MAX_PERSON_NAME = 100;

/** Earliest date an input may name: dates PostgreSQL and JavaScript both represent, and that a client means. */
export const MIN_DATE = Date.UTC(1970, 0, 1);
/** Latest date an input may name. */
export const MAX_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Distinct GraphQL operation names /metrics labels; names past these count as `other` (clients choose them). */
export const MAX_METRIC_OPERATIONS = 200;
