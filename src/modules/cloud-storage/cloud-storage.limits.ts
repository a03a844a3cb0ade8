// Limits of cloud storage destinations (docs/operations.md, Limits).

/** How long the probe at connect time (a write and a delete) may take before the bucket is refused. */
export const PROBE_TIMEOUT_MS = 10_000;
/** The longest access key id and secret access key accepted. */
export const MAX_ACCESS_KEY_ID = 128;
export const MAX_SECRET_ACCESS_KEY = 256;
/** The longest region name (S3-compatible services name theirs freely). */
export const MAX_REGION = 64;
/** The longest endpoint URL. */
export const MAX_S3_ENDPOINT = 2048;
/**
 * How long a copy may wait to connect, and then wait on a silent connection, before its attempt fails
 * (and is retried): a bucket that stops answering cannot hold the timed work's worker.
 */
export const COPY_CONNECT_TIMEOUT_MS = 10_000;
export const COPY_IDLE_TIMEOUT_MS = 60_000;
