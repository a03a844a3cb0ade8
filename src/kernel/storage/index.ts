import type { StorageConfig } from '../../config/config';
import { createLocalStorage } from './local';
import { createS3Storage, type S3Log } from './s3';
import type { Storage } from './storage';

export type { PutResult, Storage } from './storage';

/** The store the configuration names; `log` takes an S3 client's own messages. */
export function createStorage(config: StorageConfig, log: S3Log): Storage {
  return config.driver === 'local' ? createLocalStorage(config.dir) : createS3Storage(config, log);
}
