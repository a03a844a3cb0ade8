import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { seal, unseal } from '../../kernel/crypto/seal';
import { createS3Client, type S3Log } from '../../kernel/storage/s3';
import type { CloudStorageConnectionRow } from './cloud-storage.entities';
import { PROBE_TIMEOUT_MS, COPY_CONNECT_TIMEOUT_MS, COPY_IDLE_TIMEOUT_MS } from './cloud-storage.limits';

const SEAL_PURPOSE = 'cloud-storage-credentials';

export type S3Credentials = { accessKeyId: string; secretAccessKey: string };

/** Where a bucket is and how to reach it (what a connection stores, the keys sealed apart). */
export type S3Location = { bucket: string; region: string; endpoint?: string | null; forcePathStyle: boolean };

export const sealCredentials = (secret: string, credentials: S3Credentials): string =>
  seal(secret, SEAL_PURPOSE, JSON.stringify(credentials));

/** A client of a connected bucket, its keys unsealed. */
export function connectionClient(secret: string, connection: CloudStorageConnectionRow, log: S3Log): S3Client {
  return bucketClient(
    connection,
    JSON.parse(unseal(secret, SEAL_PURPOSE, connection.sealedCredentials)) as S3Credentials,
    log,
  );
}

// Retries are the job queue's (minutes apart, recorded), not the SDK's (milliseconds apart, silent).
const bucketClient = (location: S3Location, credentials: S3Credentials, log: S3Log): S3Client =>
  createS3Client({
    region: location.region,
    endpoint: location.endpoint ?? undefined,
    forcePathStyle: location.forcePathStyle,
    credentials,
    maxAttempts: 1,
    timeouts: { connectionTimeout: COPY_CONNECT_TIMEOUT_MS, requestTimeout: COPY_IDLE_TIMEOUT_MS },
    log,
  });

/** What went wrong talking to a bucket, in words an admin can act on (the service's code and message). */
export function describeS3Error(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer in time (${e.message ?? e.name})`;
  const status = e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : '';
  const code = e.code ?? e.name ?? 'Error';
  return `${code}${status}: ${e.message ?? String(err)}`.slice(0, 300);
}

/**
 * Writes and deletes a small object, as a copy will: the keys, the bucket and the endpoint all work, or
 * this throws with what the service answered. The object's name is unique, so nothing of the
 * organization's is touched.
 */
export async function probeBucket(location: S3Location, credentials: S3Credentials, log: S3Log): Promise<void> {
  const client = bucketClient(location, credentials, log);
  const Key = `.gather-connection-test-${randomUUID()}`;
  const abortSignal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: location.bucket,
        Key,
        Body: 'Gather checks that it may write here; this object is deleted at once.\n',
      }),
      { abortSignal },
    );
    await client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key }), { abortSignal });
  } finally {
    client.destroy();
  }
}

/** Streams one object into the bucket (one PUT: its size is known). */
export async function putObject(
  client: S3Client,
  bucket: string,
  key: string,
  body: Readable,
  size: number,
  contentType: string,
  sha256: string,
): Promise<void> {
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentLength: size,
        ContentType: contentType,
        Metadata: { sha256 },
      }),
    );
  } finally {
    // A refused PUT leaves the source unread: closed here, not when it is collected.
    body.destroy();
  }
}
