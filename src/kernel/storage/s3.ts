import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, type Readable } from 'node:stream';
import { checkKey, Meter, MissingObjectError, type Storage } from './storage';

export type S3StorageOptions = {
  bucket: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
};

// Parts of a multipart upload held in memory at once: PART_SIZE x QUEUE_SIZE bytes per upload.
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 4;

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/** A client of an S3 bucket (AWS or any S3-compatible service), set up as every S3 use here needs. */
export function createS3Client(
  options: Omit<S3StorageOptions, 'bucket'> & {
    maxAttempts?: number;
    /** Milliseconds to connect, and of silence on a connection, before a request fails. */
    timeouts?: { connectionTimeout: number; requestTimeout: number };
  },
): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    forcePathStyle: options.forcePathStyle,
    maxAttempts: options.maxAttempts,
    requestHandler: options.timeouts,
    // The SDK's default since 2025 adds CRC checksums with aws-chunked trailers to every upload, which
    // many S3-compatible services do not understand; SHA-256 is computed here anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Objects in an S3 bucket (AWS or any S3-compatible service). */
export function createS3Storage(options: S3StorageOptions): Storage {
  const client = createS3Client(options);
  const Bucket = options.bucket;

  return {
    description: `S3 bucket ${Bucket}${options.endpoint ? ` at ${options.endpoint}` : ` in ${options.region}`}`,
    async put(key, source: Readable, { maxBytes }) {
      const meter = new Meter(maxBytes);
      const body = pipeline(source, meter, () => undefined);
      // An object appears only when the upload completes; a failed multipart upload is aborted
      // (leavePartsOnError false), so nothing is left behind.
      const upload = new Upload({
        client,
        params: { Bucket, Key: checkKey(key), Body: body },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
      });
      try {
        await upload.done();
      } catch (err) {
        body.destroy();
        // A source that failed is the cause worth reporting, not the SDK's view of it.
        throw (source.errored ?? meter.errored ?? err) as Error;
      }
      return meter.result();
    },
    async get(key) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) })).catch((err: unknown) => {
        throw isNotFound(err) ? new MissingObjectError(key, err) : err;
      });
      return object.Body as Readable;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: checkKey(key) }));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}
