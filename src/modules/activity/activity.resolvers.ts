import type { Resolvers } from '../../generated/resolvers-types';
import { listActivity } from './activity.service';
import { countFields } from '../../kernel/graphql/pagination';

/** A person's name as the log shows it: first and last name, else how to reach them. */
const nameOf = (
  person: { firstName?: string | null; lastName?: string | null; email?: string | null; phone?: string | null } | null,
) =>
  person ? [person.firstName, person.lastName].filter(Boolean).join(' ') || person.email || person.phone || null : null;

export const activityResolvers: Resolvers = {
  Request: {
    activity: (request, args, ctx) => listActivity(ctx, request, args),
  },
  Activity: {
    actor: (entry) => entry,
    details: (entry) => entry.details,
  },
  ActivityActor: {
    type: (entry) => entry.actorType,
    id: (entry) => entry.actorId ?? null,
    name: async (entry, _args, ctx) => {
      if (!entry.actorId) return null;
      if (entry.actorType === 'USER') return nameOf(await ctx.loaders.userById.load(entry.actorId));
      if (entry.actorType === 'RECIPIENT') return nameOf(await ctx.loaders.recipientById.load(entry.actorId));
      return null;
    },
    user: (entry, _args, ctx) =>
      entry.actorType === 'USER' && entry.actorId ? ctx.loaders.userById.load(entry.actorId) : null,
    recipient: (entry, _args, ctx) =>
      entry.actorType === 'RECIPIENT' && entry.actorId ? ctx.loaders.recipientById.load(entry.actorId) : null,
    ip: (entry) => (entry.actorType === 'RECIPIENT' ? (entry.ip ?? null) : null),
    userAgent: (entry) => (entry.actorType === 'RECIPIENT' ? (entry.userAgent ?? null) : null),
  },
  ActivityConnection: {
    ...countFields,
  },
};
