import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import {
  createApiKey,
  createTeam,
  createUser,
  getOrganization,
  getTeam,
  getUser,
  listTeams,
  listUsers,
  revokeApiKey,
  updateUser,
} from './identity.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

export const identityResolvers: Resolvers = {
  Query: {
    viewer: async (_root, _args, ctx) => (await ctx.loaders.userById.load(ctx.viewer.userId))!,
    organization: (_root, _args, ctx) => getOrganization(ctx),
    user: (_root, { id }, ctx) => getUser(ctx, id),
    team: (_root, { id }, ctx) => getTeam(ctx, id),
  },
  Mutation: {
    teamCreate: (_root, { input }, ctx) => payload(async () => ({ team: await createTeam(ctx, input) })),
    userCreate: (_root, { input }, ctx) => payload(async () => ({ user: await createUser(ctx, input) })),
    userUpdate: (_root, { id, input }, ctx) => payload(async () => ({ user: await updateUser(ctx, id, input) })),
    apiKeyCreate: (_root, { input }, ctx) => payload(() => createApiKey(ctx, input)),
    apiKeyRevoke: (_root, { id }, ctx) => payload(async () => ({ apiKey: await revokeApiKey(ctx, id) })),
  },
  Organization: {
    users: (_org, args, ctx) => listUsers(ctx, args),
    teams: (_org, _args, ctx) => listTeams(ctx),
  },
  User: {
    organization: reads(
      ['organization'],
      async (user, _args, ctx) => (await ctx.loaders.organizationById.load(user.organization.id))!,
    ),
    team: reads(['team'], (user, _args, ctx) => (user.team ? ctx.loaders.teamById.load(user.team.id) : null)),
  },
  Team: {
    organization: async (team, _args, ctx) => (await ctx.loaders.organizationById.load(team.organization.id))!,
    members: (team, _args, ctx) => ctx.loaders.teamMembers.load(team.id),
  },
  ApiKey: {
    user: async (apiKey, _args, ctx) => (await ctx.loaders.userById.load(apiKey.user.id))!,
  },
  UserConnection: {
    ...countFields,
  },
};
