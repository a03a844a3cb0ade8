import type { Resolvers } from '../../generated/resolvers-types';
import { listNotifications } from './notification.service';
import { countFields } from '../../kernel/graphql/pagination';

export const notificationResolvers: Resolvers = {
  Query: {
    notifications: (_root, args, ctx) => listNotifications(ctx, args),
  },
  Notification: {
    recipientId: (notification) => notification.recipient?.id ?? null,
    userId: (notification) => notification.user?.id ?? null,
    requestId: (notification) => notification.request?.id ?? null,
    attemptCount: (notification) => notification.attempts,
  },
  NotificationConnection: {
    ...countFields,
  },
};
