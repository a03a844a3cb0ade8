import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, type Readable } from 'node:stream';
import type { BaseLogger } from 'pino';
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

/** The service's log, as an S3 client needs it (a pino or Fastify logger). */
export type S3Log = Pick<BaseLogger, 'debug'>;

/**
 * The SDK's logger: its warnings and per-command lines go to the service's log at debug level, its own
 * debug lines (where it looked for each setting) nowhere. Without a logger the SDK writes some warnings
 * to the console (a failed streaming upload, for one), which the caller reports in its own words anyway.
 * A command's line keeps the command and the answer's metadata, not its input or output (object keys,
 * bodies).
 */
export function sdkLogger(log: S3Log): NonNullable<S3ClientConfig['logger']> {
  const toDebug = (...content: unknown[]) => {
    const [first] = content;
    if (content.length === 1 && typeof first === 'object' && first !== null && 'commandName' in first) {
      const { clientName, commandName, metadata, error } = first as {
        clientName?: string;
        commandName?: string;
        metadata?: unknown;
        error?: { name?: string; message?: string };
      };
      log.debug(
        { aws: { command: commandName, metadata, ...(error ? { error: `${error.name}: ${error.message}` } : {}) } },
        `AWS SDK: ${clientName} ${commandName} ${error ? 'failed' : 'done'}`,
      );
    } else log.debug({ aws: content.length > 1 ? content.slice(1) : undefined }, `AWS SDK: ${String(first)}`);
  };
  const drop = () => undefined;
  return { trace: drop, debug: drop, info: toDebug, warn: toDebug, error: toDebug };
}

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
    /** Where the SDK's own messages go (sdkLogger). */
    log: S3Log;
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
    logger: sdkLogger(options.log),
  });
}

/** Objects in an S3 bucket (AWS or any S3-compatible service). */
export function createS3Storage(options: S3StorageOptions, log: S3Log): Storage {
  const client = createS3Client({ ...options, log });
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
