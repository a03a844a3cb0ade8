import { loadRef, loadRequiredRef, primeAll } from '../../kernel/db/loaders';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { canDeleteRequest } from './request.access';
import {
  closeRequest,
  createRequest,
  deleteRequest,
  getRequest,
  listRequests,
  noteRead,
  sendRequest,
  updateRequest,
} from './request.service';
import { LANGUAGE_GRAPHQL_VALUES } from './request.enums';
import { listRequestEvents } from './request.events';
import { countFields } from '../../kernel/graphql/pagination';
import { reads, selectedNodeProperties } from '../../kernel/graphql/projection';
import type { GraphQLResolveInfo } from 'graphql';

/**
 * A page of requests read with what the document selects of them, whose records also answer lookups
 * by id (an item's or recipient's request) that read no more than that.
 */
async function listRequestsPrimed(
  ctx: GraphQLContext,
  args: Parameters<typeof listRequests>[1],
  info: GraphQLResolveInfo,
) {
  const properties = selectedNodeProperties(info);
  const connection = await listRequests(ctx, args, properties);
  primeAll(ctx.loaders.requestById, connection.nodes, properties);
  return connection;
}

export const requestResolvers: Resolvers = {
  // GraphQL's EN_US is the domain's en-US (see codegen.ts, enumValues).
  Language: LANGUAGE_GRAPHQL_VALUES as never,
  Query: {
    request: async (_root, { id }, ctx) => {
      const found = await getRequest(ctx, id);
      const request = found && (await noteRead(ctx, found));
      if (request) primeAll(ctx.loaders.requestById, [request]);
      return request;
    },
    requests: (_root, args, ctx, info) => listRequestsPrimed(ctx, args, info),
    // Its totalCount is counted only when selected (below); the generated type wants the number.
    requestEvents: (_root, args, ctx) => listRequestEvents(ctx, args) as never,
  },
  Mutation: {
    requestCreate: (_root, { input }, ctx) =>
      payload(async () => ({ request: (await createRequest(ctx, input)).request })),
    requestUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ request: (await updateRequest(ctx, id, input)).request })),
    requestDelete: (_root, { id }, ctx) => payload(async () => ({ deletedRequestId: await deleteRequest(ctx, id) })),
    requestClose: (_root, { id }, ctx) => payload(async () => ({ request: (await closeRequest(ctx, id)).request })),
    requestSend: (_root, { id }, ctx) => payload(async () => ({ request: (await sendRequest(ctx, id)).request })),
  },
  Organization: {
    requests: (_org, args, ctx, info) => listRequestsPrimed(ctx, args, info),
  },
  Request: {
    owner: reads(['owner'], (request, _args, ctx, info) => loadRequiredRef(request.owner, ctx.loaders.userById, info)),
    team: reads(['team'], (request, _args, ctx, info) =>
      request.team ? loadRef(request.team, ctx.loaders.teamById, info) : null,
    ),
    userMetadata: reads(['userMetadata'], (request) => request.userMetadata),
    rejection: reads(['rejection'], (request) => request.rejection ?? null),
    collaborators: reads(['id'], (request, _args, ctx) => ctx.loaders.collaboratorsByRequest.load(request.id)),
    // Whoever sees a request may update it (see request.access.ts).
    viewerCanUpdate: reads([], () => true),
    viewerCanDelete: reads(['owner', 'team'], (request, _args, ctx) => canDeleteRequest(ctx.viewer, request)),
  },
  Collaborator: {
    id: (collaborator) => collaborator.user.id,
    user: (collaborator, _args, ctx, info) => loadRequiredRef(collaborator.user, ctx.loaders.userById, info),
  },
  RequestConnection: {
    ...countFields,
  },
  RequestEventPage: {
    totalCount: (page) => (page as unknown as Awaited<ReturnType<typeof listRequestEvents>>).totalCount(),
  },
};
