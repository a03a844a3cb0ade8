import type { Reader } from '../../kernel/db/db';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Notification } from './notification.entities';

export const notificationLoaders = {
  notificationById: (db: Reader) => createByIdLoader(db, Notification),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof notificationLoaders> {}
}
