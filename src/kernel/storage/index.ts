import type { StorageConfig } from '../../config/config';
import { createLocalStorage } from './local';
import { createS3Storage } from './s3';
import type { Storage } from './storage';

export type { PutResult, Storage } from './storage';

export function createStorage(config: StorageConfig): Storage {
  return config.driver === 'local' ? createLocalStorage(config.dir) : createS3Storage(config);
}
