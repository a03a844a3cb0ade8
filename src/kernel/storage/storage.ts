import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { AppError } from '../errors/app-error';

/** What a stored object is, measured while its bytes went by. */
export type PutResult = { size: number; sha256: string };

/**
 * Where file bytes live. Everything that stores bytes goes through this one interface; the driver is
 * chosen by configuration (`STORAGE_DRIVER`).
 */
export type Storage = {
  /** For the start-up log. */
  readonly description: string;
  /**
   * Streams `source` into the object `key`. The object appears only once every byte is stored; a
   * source that fails, or grows past `maxBytes` (a PAYLOAD_TOO_LARGE AppError), leaves no object.
   */
  put(key: string, source: Readable, options: { maxBytes: number }): Promise<PutResult>;
  /** A stream of the object's bytes; a MissingObjectError when there is no such object. */
  get(key: string): Promise<Readable>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
};

/** Keys name objects in paths and URLs, so they are kept to characters safe in both. */
export function checkKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/.test(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  return key;
}

/**
 * An object a row names that the storage does not hold: lost, or on storage this instance does not reach (a
 * local directory that is not shared). Answered 410; the edges log it, as the service is at fault.
 */
export class MissingObjectError extends AppError {
  constructor(
    readonly key: string,
    cause: unknown,
  ) {
    super('GONE', 'The file is no longer stored', { cause });
    this.name = 'MissingObjectError';
  }
}

export const tooLarge = (maxBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `File is larger than ${maxBytes} bytes`);

/**
 * A pass-through that counts and hashes the bytes going by and fails once they pass `maxBytes`, so
 * size and SHA-256 are known without reading the object again and no driver can store too much.
 */
export class Meter extends Transform {
  private readonly hash = createHash('sha256');
  private size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null, data?: Buffer) => void,
  ): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(tooLarge(this.maxBytes));
    this.hash.update(chunk);
    callback(null, chunk);
  }

  result(): PutResult {
    return { size: this.size, sha256: this.hash.digest('hex') };
  }
}
