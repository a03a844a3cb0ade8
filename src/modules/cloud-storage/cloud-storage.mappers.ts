import type { CloudStorageView } from './cloud-storage.service';

/** A provider's state as the service answers it (its connection without the sealed keys). */
export type CloudStorageProviderMapper = CloudStorageView;
