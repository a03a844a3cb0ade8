// Limits of webhook subscriptions (docs/operations.md, Limits); retries follow RETRY_DELAYS_MS (webhook.delivery.ts).

/** Topics of one subscription (at least one, none twice). */
export const MAX_TOPICS = 16;
/** Characters of an endpoint URL. */
export const MAX_ENDPOINT_LENGTH = 2000;
/**
 * Queues an endpoint's deliveries go through, its requests spread over them: at most this many of its deliveries in
 * flight at once, those of one request one after another.
 */
export const DELIVERY_QUEUES_PER_ENDPOINT = 16;
