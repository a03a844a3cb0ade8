// Limits every module shares. Each module keeps its own in `<noun>.limits.ts`; the Limits table of
// docs/operations.md is generated from these files (`npm run docs:limits`). Limits a deployment may
// change are configuration instead (src/config/config.ts).

/** Page size of a list when the client names none (REST `limit`, GraphQL `first`/`last`). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest page size a list answers. */
export const MAX_PAGE_SIZE = 100;

/** Deepest nesting of a GraphQL document; deeper than any of our own documents need. */
export const MAX_QUERY_DEPTH = 12;
/** Tokens (names, punctuation, values) of one GraphQL document, or of a batch's together; our largest has about 200. */
export const MAX_QUERY_TOKENS = 5000;
/**
 * Aliases in one GraphQL operation (`a: request(id: …) b: request(id: …)`), or in a batch's operations
 * together, unless `GRAPHQL_MAX_ALIASES` says otherwise: graphql-armor's default. Ours use none; each
 * alias repeats a field's whole work, so hundreds let one request do hundreds of requests' work.
 */
export const DEFAULT_MAX_QUERY_ALIASES = 15;
/** Directives in one GraphQL operation; ours use none. */
export const MAX_QUERY_DIRECTIVES = 50;
/**
 * Cost of one GraphQL operation, or of a batch's operations together, as graphql-armor's cost-limit
 * counts it (a scalar 1, an object 2, ×1.5 for each level deeper, a list times its `first`/`last`): our
 * REST rows' documents cost at most about 500, the test suite's select-everything document under `node`
 * about 300,000; three lists of 100 nested in each other exceed it.
 */
export const MAX_QUERY_COST = 1_000_000;
/** Operations in one batched `POST /graphql` (a JSON array of operations); each counts against the rate limit. */
export const MAX_BATCH_OPERATIONS = 10;
/** Automatic persisted queries (hash → document) each instance remembers, least recently used first out. */
export const MAX_PERSISTED_QUERIES = 1000;
/** Deepest nesting of a JSON body, refused before it reaches a schema. */
export const MAX_JSON_DEPTH = 64;

/**
 * Bytes of events that may wait for one subscriber (not yet written to its socket) before it is cut
 * off: about a thousand events of a kilobyte.
 */
export const MAX_PENDING_BYTES = 1024 * 1024;
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

/**
 * Requests one API key may make per `RATE_LIMIT_WINDOW_SECONDS` (default one minute), all instances together, unless
 * `RATE_LIMIT_API_KEY` says otherwise.
 */
export const DEFAULT_RATE_LIMIT_API_KEY = 3000;
/** Requests per window on one recipient link or session, unless `RATE_LIMIT_LINK` says otherwise. */
export const DEFAULT_RATE_LIMIT_LINK = 600;
/** Requests per window from one client address without a credential, unless `RATE_LIMIT_ADDRESS` says otherwise. */
export const DEFAULT_RATE_LIMIT_ADDRESS = 300;

/** Hours an `Idempotency-Key` is remembered (its first answer replayed) after its first use. */
export const IDEMPOTENCY_KEY_HOURS = 24;
/** Characters of an `Idempotency-Key`. */
export const MAX_IDEMPOTENCY_KEY = 255;

/** Distinct GraphQL operation names /metrics labels; names past these count as `other` (clients choose them). */
export const MAX_METRIC_OPERATIONS = 200;

/**
 * Seconds an instance keeps a row it caches for every request (an API key's caller, an organization's
 * settings), by default (SHARED_CACHE_SECONDS). A change on any instance empties the cache at once (a
 * trigger's NOTIFY); this bounds what a change made behind the triggers' back (a restore with
 * triggers disabled) could leave.
 */
export const SHARED_CACHE_TTL_SECONDS = 30;
/** Entries of each such cache (API keys, organizations, users); the oldest goes first past it. */
export const SHARED_CACHE_ENTRIES = 10_000;

/** Jobs an instance runs at once, by default (JOB_CONCURRENCY), and at most. */
export const DEFAULT_JOB_CONCURRENCY = 10;
export const MAX_JOB_CONCURRENCY = 100;

/** Milliseconds between looks for jobs that came due (retries, timed work), by default (JOB_POLL_MS), and its bounds. */
export const DEFAULT_JOB_POLL_MS = 1_000;
export const MIN_JOB_POLL_MS = 100;
export const MAX_JOB_POLL_MS = 60_000;

/**
 * Statement texts an instance prepares (each PostgreSQL connection keeps its prepared statements, parsed
 * and planned, for its life); texts past them, such as lists selecting yet other columns, are sent unnamed.
 */
export const MAX_PREPARED_STATEMENTS = 200;
