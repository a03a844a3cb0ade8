import type { EntityManager } from '@mikro-orm/postgresql';
import { createByIdLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Notification } from './notification.entities';

export const notificationLoaders = {
  notificationById: (em: EntityManager) => createByIdLoader(em, Notification),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof notificationLoaders> {}
}
