import { Type } from '@sinclair/typebox';
import {
  OrganizationRequestListDocument,
  RequestCloseDocument,
  RequestCreateDocument,
  RequestDeleteDocument,
  RequestGetDocument,
  RequestListDocument,
  RequestSendDocument,
  RequestUpdateDocument,
  type RequestCreateInput,
  type RequestOrder,
} from '../../generated/operations';
import type { Renderer } from '../../kernel/events/outbox';
import { committedRender } from '../../kernel/events/render';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization, noContent } from '../../kernel/rest/mapping';
import { listQuery, NoContent, Query, StringEnum, Uuid, withErrors } from '../../kernel/rest/schemas';
import { REQUEST_STATES } from './request.enums';
import { requestRest, RequestUpdateBody, requestUpdateInputFromRest, restRequest } from './request.rest-shapes';

const tags = ['Requests'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ListQuery = listQuery('desc');
const RequestListQuery = Query({ ...ListQuery.properties, status: StringEnum(REQUEST_STATES, 'a request status') });

const order = (query: Record<string, any>): RequestOrder => ({
  field: 'CREATED_AT',
  direction: query.order === 'asc' ? 'ASC' : 'DESC',
});

/** The rows, made once the modules are folded: the request's bodies hold what its parts contribute. */
export function requestRestRows(): RestRow[] {
  const { CreateBody, createInputFromRest, ResponseBody } = requestRest();
  return [
    restRow({
      method: 'POST',
      url: '/requests',
      summary: 'Create a request',
      tags,
      schema: { body: CreateBody, response: withErrors({ 200: ResponseBody }, [403, 404, 422]) },
      operation: RequestCreateDocument,
      // The body's schema holds what the input requires; the shape's builder types its fields loosely.
      variables: ({ body }) => ({ input: createInputFromRest(body) as RequestCreateInput }),
      // The event's rendering of the new request, through the same REST document and mapping as
      // GET /requests/{id} and in the committed transaction: executing the request's fields again
      // for the answer showed in the create's profile.
      result: (data, _input, ctx) => ({ body: renderedRequest(ctx, fromPayload(data.requestCreate, 'request').id) }),
    }),
    restRow({
      method: 'GET',
      url: '/requests',
      summary: 'List requests, newest first by default',
      tags,
      schema: { querystring: RequestListQuery, response: withErrors({ 200: Type.Array(ResponseBody) }, [422]) },
      operation: RequestListDocument,
      variables: ({ query }) => ({
        first: query.limit,
        orderBy: order(query),
        filter: query.status ? { states: [query.status] } : null,
      }),
      result: (data) => ({ body: data.requests.nodes.map(restRequest) }),
    }),
    restRow({
      method: 'GET',
      // The spec writes this path /requests/{id}; one name per position keeps the router unambiguous.
      url: '/requests/:request_id',
      summary: 'Get a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestGetDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: restRequest(found(data.request, 'Request')) }),
    }),
    restRow({
      method: 'GET',
      url: '/organizations/:org_id/requests',
      summary: "List an organization's requests",
      tags,
      schema: {
        params: Type.Object({ org_id: Uuid() }),
        querystring: ListQuery,
        response: withErrors({ 200: Type.Array(ResponseBody) }),
      },
      operation: OrganizationRequestListDocument,
      variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit, orderBy: order(query) }),
      result: (data) => {
        return { body: foundOrganization(data.node, 'requests').requests.nodes.map(restRequest) };
      },
    }),
    restRow({
      method: 'PATCH',
      url: '/requests/:request_id',
      summary: 'Update a request',
      tags,
      schema: {
        params: RequestParams,
        body: RequestUpdateBody,
        response: withErrors({ 200: ResponseBody }, [403, 404, 422]),
      },
      operation: RequestUpdateDocument,
      variables: ({ params, body }) => ({ id: params.request_id, input: requestUpdateInputFromRest(body ?? {}) }),
      // As the create: the update's rendering of the request (its event's, or the unchanged request's).
      result: (data, _input, ctx) => ({ body: renderedRequest(ctx, fromPayload(data.requestUpdate, 'request').id) }),
    }),
    restRow({
      method: 'DELETE',
      url: '/requests/:request_id',
      summary: 'Delete a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 204: NoContent }, [403, 404, 422]) },
      operation: RequestDeleteDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => noContent(data.requestDelete, 'deletedRequestId'),
    }),
    restRow({
      method: 'POST',
      url: '/requests/:request_id/close',
      summary: 'Close a request',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestCloseDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: restRequest(fromPayload(data.requestClose, 'request')) }),
    }),
    restRow({
      method: 'POST',
      url: '/requests/:request_id/send',
      summary: 'Send a draft to its recipients',
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestSendDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: restRequest(fromPayload(data.requestSend, 'request')) }),
    }),
  ];
}

/** A request in its REST shape as the operation's committed change rendered it (its event's). */
function renderedRequest(ctx: object, id: string): Record<string, unknown> {
  const rendered = committedRender(ctx, 'Request', id);
  if (!rendered) throw new Error(`request ${id} was written without its rendering`);
  return rendered;
}

export const renderRequest: Renderer = async (run, id) =>
  restRequest(found((await run(RequestGetDocument, { id })).request, 'Request'));
