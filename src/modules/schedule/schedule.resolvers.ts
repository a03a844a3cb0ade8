import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { duplicateRequest } from './duplicate.service';
import { remindable } from './reminder.service';
import {
  createEscalation,
  createScheduledReminder,
  deleteEscalation,
  deleteScheduledReminder,
  listReminders,
  sendReminderNow,
  updateEscalation,
  updateScheduledReminder,
} from './schedule.service';

export const scheduleResolvers: Resolvers = {
  Request: {
    sentReminders: (request, args, ctx) => listReminders(ctx, request, args),
    // A draft or a submitted request keeps its schedule but is not reminded: nothing is due.
    nextReminderAt: (request, _args, ctx) =>
      remindable(request) ? ctx.loaders.nextReminderByRequest.load(request.id) : null,
    scheduledReminders: (request, _args, ctx) => ctx.loaders.scheduledRemindersByRequest.load(request.id),
    escalations: (request, _args, ctx) => ctx.loaders.escalationsByRequest.load(request.id),
  },
  Reminder: {
    requestId: (reminder) => reminder.request.id,
    sentBy: (reminder, _args, ctx) => (reminder.sentBy ? ctx.loaders.userById.load(reminder.sentBy.id) : null),
  },
  ReminderRecipient: {
    recipient: (entry, _args, ctx) => ctx.loaders.recipientById.load(entry.recipientId),
    deferredUntil: (entry) => (entry.deferredUntil ? new Date(entry.deferredUntil) : null),
  },
  ReminderMessage: {
    // The reminder's owner reads where its messages stand (the messages' bodies stay the ADMIN's).
    status: async (message, _args, ctx) =>
      (await ctx.loaders.notificationById.load(message.notificationId))?.status ?? 'FAILED',
    fallbackFor: (message) => message.fallbackFor ?? null,
  },
  ScheduledReminder: {
    requestId: (reminder) => reminder.request.id,
  },
  Escalation: {
    requestId: (escalation) => escalation.request.id,
    // Neither a user nor an address: the request's owner, whoever owns it when the rule fires.
    notifyUser: async (escalation, _args, ctx) => {
      if (escalation.notifyEmail) return null;
      const userId = escalation.notifyUser?.id ?? (await ctx.loaders.requestById.load(escalation.request.id))?.owner.id;
      return userId ? ctx.loaders.userById.load(userId) : null;
    },
  },
  Mutation: {
    reminderSend: (_root, { requestId, input }, ctx) =>
      payload(async () => ({ reminder: await sendReminderNow(ctx, requestId, input) })),
    scheduledReminderCreate: (_root, { requestId, input }, ctx) =>
      payload(async () => ({ scheduledReminder: await createScheduledReminder(ctx, requestId, input) })),
    scheduledReminderUpdate: (_root, { requestId, id, input }, ctx) =>
      payload(async () => ({ scheduledReminder: await updateScheduledReminder(ctx, requestId, id, input) })),
    scheduledReminderDelete: (_root, { requestId, id }, ctx) =>
      payload(async () => ({ deletedScheduledReminderId: await deleteScheduledReminder(ctx, requestId, id) })),
    escalationCreate: (_root, { requestId, input }, ctx) =>
      payload(async () => ({ escalation: await createEscalation(ctx, requestId, input) })),
    escalationUpdate: (_root, { requestId, id, input }, ctx) =>
      payload(async () => ({ escalation: await updateEscalation(ctx, requestId, id, input) })),
    escalationDelete: (_root, { requestId, id }, ctx) =>
      payload(async () => ({ deletedEscalationId: await deleteEscalation(ctx, requestId, id) })),
    requestDuplicate: (_root, { id, input }, ctx) =>
      payload(async () => ({ request: (await duplicateRequest(ctx, id, input)).request })),
  },
};
