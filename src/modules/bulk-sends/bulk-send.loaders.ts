import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { BulkSend } from './bulk-send.entities';

export const bulkSendLoaders = {
  bulkSendById: (db: Reader) => createByIdLoader(db, BulkSend),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof bulkSendLoaders> {}
}
