import { Type } from '@sinclair/typebox';
import {
  RequestCloseDocument,
  RequestCreateDocument,
  RequestDeleteDocument,
  RequestSendDocument,
  RequestUpdateDocument,
  type RequestCreateInput,
  type RequestOrder,
} from '../../generated/operations';
import type {
  MutationRequestCreateArgs,
  MutationRequestUpdateArgs,
  RequestOrder as RequestOrderArgs,
} from '../../generated/resolvers-types';
import { found, serviceRow, type RestInput, type RestRow } from '../../kernel/rest/engine';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { listQuery, NoContent, Query, StringEnum, Uuid, withErrors } from '../../kernel/rest/schemas';
import { REQUEST_STATES } from './request.enums';
import { requestRest } from './request.rest-shapes';
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
import { requestViews } from './request.view';

// The requests' REST rows call the service, and answer the request's view (request.view.ts): what
// its event carries, read in the writing transaction for a write.

const tags = ['Requests'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ListQuery = listQuery('desc');
const RequestListQuery = Query({ ...ListQuery.properties, status: StringEnum(REQUEST_STATES, 'a request status') });

const order = (query: Record<string, any>): RequestOrder => ({
  field: 'CREATED_AT',
  direction: query.order === 'asc' ? 'ASC' : 'DESC',
});

/** A page of the requests the caller sees, as REST lists them: their views. */
async function listViews(ctx: GraphQLContext, { query }: RestInput, states?: string[]) {
  const page = await listRequests(ctx, {
    first: query.limit,
    orderBy: order(query) as RequestOrderArgs,
    filter: states ? { states: states as never } : null,
  });
  return { body: await requestViews(ctx.db, ctx.settings, page.nodes) };
}

/** The rows, made once the modules are folded: the request's bodies hold what its parts contribute. */
export function requestRestRows(): RestRow[] {
  const { CreateBody, createInputFromRest, UpdateBody, updateInputFromRest, ResponseBody } = requestRest();
  return [
    serviceRow<MutationRequestCreateArgs>({
      method: 'POST',
      url: '/requests',
      summary: 'Create a request',
      tags,
      schema: { body: CreateBody, response: withErrors({ 200: ResponseBody }, [403, 404, 422]) },
      operation: RequestCreateDocument,
      // The body's schema holds what the input requires; the shape's builder types its fields loosely.
      variables: ({ body }) => ({ input: createInputFromRest(body) as RequestCreateInput }),
      call: async (ctx, { input }) => ({ body: (await createRequest(ctx, input)).view }),
    }),
    {
      method: 'GET',
      url: '/requests',
      summary: 'List requests, newest first by default',
      tags,
      schema: { querystring: RequestListQuery, response: withErrors({ 200: Type.Array(ResponseBody) }, [422]) },
      handle: (ctx, input) => listViews(ctx, input, input.query.status ? [input.query.status] : undefined),
    },
    {
      method: 'GET',
      // The spec writes this path /requests/{id}; one name per position keeps the router unambiguous.
      url: '/requests/:request_id',
      summary: 'Get a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      handle: async (ctx, { params }) => {
        const request = await noteRead(ctx, found(await getRequest(ctx, params.request_id), 'Request'));
        const [view] = await requestViews(ctx.db, ctx.settings, [request]);
        return { body: view };
      },
    },
    {
      method: 'GET',
      url: '/organizations/:org_id/requests',
      summary: "List an organization's requests",
      tags,
      schema: {
        params: Type.Object({ org_id: Uuid() }),
        querystring: ListQuery,
        response: withErrors({ 200: Type.Array(ResponseBody) }),
      },
      handle: (ctx, input) => {
        found(input.params.org_id === ctx.viewer.organizationId || null, 'Organization');
        return listViews(ctx, input);
      },
    },
    serviceRow<MutationRequestUpdateArgs>({
      method: 'PATCH',
      url: '/requests/:request_id',
      summary: 'Update a request',
      tags,
      schema: {
        params: RequestParams,
        body: UpdateBody,
        response: withErrors({ 200: ResponseBody }, [403, 404, 422]),
      },
      operation: RequestUpdateDocument,
      variables: ({ params, body }) => ({ id: params.request_id, input: updateInputFromRest(body ?? {}) }),
      call: async (ctx, { id, input }) => ({ body: (await updateRequest(ctx, id, input)).view }),
    }),
    serviceRow<{ id: string }>({
      method: 'DELETE',
      url: '/requests/:request_id',
      summary: 'Delete a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 204: NoContent }, [403, 404, 422]) },
      operation: RequestDeleteDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      call: async (ctx, { id }) => {
        await deleteRequest(ctx, id);
        return { status: 204 };
      },
    }),
    serviceRow<{ id: string }>({
      method: 'POST',
      url: '/requests/:request_id/close',
      summary: 'Close a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestCloseDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      call: async (ctx, { id }) => ({ body: (await closeRequest(ctx, id)).view }),
    }),
    serviceRow<{ id: string }>({
      method: 'POST',
      url: '/requests/:request_id/send',
      summary: 'Send a draft to its recipients',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestSendDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      call: async (ctx, { id }) => ({ body: (await sendRequest(ctx, id)).view }),
    }),
  ];
}
