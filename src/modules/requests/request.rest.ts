import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type {
  OrganizationRequestListQuery,
  RequestCloseMutation,
  RequestCreateMutation,
  RequestDeleteMutation,
  RequestGetQuery,
  RequestListQuery,
  RequestUpdateMutation,
} from '../../kernel/graphql/__generated__/operations';
import type { Renderer } from '../../kernel/events/outbox';
import { found, fromPayload, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization, noContent } from '../../kernel/rest/mapping';
import { loadOperations } from '../../kernel/rest/operations';
import { listQuery, NoContent, Query, StringEnum, Uuid, withErrors } from '../../kernel/rest/schemas';
import { REQUEST_STATES } from './request.enums';
import {
  RequestBody,
  RequestCreateBody,
  requestCreateInputFromRest,
  RequestUpdateBody,
  requestUpdateInputFromRest,
  restRequest,
} from './request.rest-shapes';

const operations = loadOperations(
  join(__dirname, 'request.operations.graphql'),
  join(__dirname, '../items/item.operations.graphql'),
  join(__dirname, '../attachments/attachment.operations.graphql'),
);

const tags = ['Requests'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ListQuery = listQuery('desc');
const RequestListQuery = Query({ ...ListQuery.properties, status: StringEnum(REQUEST_STATES, 'a request status') });

const order = (query: Record<string, any>) => ({ field: 'CREATED_AT', direction: query.order === 'asc' ? 'ASC' : 'DESC' });

export const requestRestRows: RestRow[] = [
  {
    method: 'POST',
    url: '/requests',
    summary: 'Create a request',
    tags,
    schema: { body: RequestCreateBody, response: withErrors({ 200: RequestBody }, [403, 404, 422]) },
    operation: operations.RequestCreate,
    variables: ({ body }) => ({ input: requestCreateInputFromRest(body) }),
    result: (data: RequestCreateMutation) => ({ body: restRequest(fromPayload(data.requestCreate, 'request')) }),
  },
  {
    method: 'GET',
    url: '/requests',
    summary: 'List requests, newest first by default',
    tags,
    schema: { querystring: RequestListQuery, response: withErrors({ 200: Type.Array(RequestBody) }, [422]) },
    operation: operations.RequestList,
    variables: ({ query }) => ({ first: query.limit, orderBy: order(query), filter: query.status ? { states: [query.status] } : null }),
    result: (data: RequestListQuery) => ({ body: data.requests.nodes.map(restRequest) }),
  },
  {
    method: 'GET',
    // The spec writes this path /requests/{id}; one name per position keeps the router unambiguous.
    url: '/requests/:request_id',
    summary: 'Get a request',
    tags,
    schema: { params: RequestParams, response: withErrors({ 200: RequestBody }) },
    operation: operations.RequestGet,
    variables: ({ params }) => ({ id: params.request_id }),
    result: (data: RequestGetQuery) => ({ body: restRequest(found(data.request, 'Request')) }),
  },
  {
    method: 'GET',
    url: '/organizations/:org_id/requests',
    summary: "List an organization's requests",
    tags,
    schema: { params: Type.Object({ org_id: Uuid() }), querystring: ListQuery, response: withErrors({ 200: Type.Array(RequestBody) }) },
    operation: operations.OrganizationRequestList,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit, orderBy: order(query) }),
    result: (data: OrganizationRequestListQuery) => {
      return { body: foundOrganization(data.node, 'requests').requests.nodes.map(restRequest) };
    },
  },
  {
    method: 'PATCH',
    url: '/requests/:request_id',
    summary: 'Update a request',
    tags,
    schema: { params: RequestParams, body: RequestUpdateBody, response: withErrors({ 200: RequestBody }, [403, 404, 422]) },
    operation: operations.RequestUpdate,
    variables: ({ params, body }) => ({ id: params.request_id, input: requestUpdateInputFromRest(body ?? {}) }),
    result: (data: RequestUpdateMutation) => ({ body: restRequest(fromPayload(data.requestUpdate, 'request')) }),
  },
  {
    method: 'DELETE',
    url: '/requests/:request_id',
    summary: 'Delete a request',
    tags,
    schema: { params: RequestParams, response: withErrors({ 204: NoContent }, [403, 404, 422]) },
    operation: operations.RequestDelete,
    variables: ({ params }) => ({ id: params.request_id }),
    result: (data: RequestDeleteMutation) => noContent(data.requestDelete, 'deletedRequestId'),
  },
  {
    method: 'POST',
    url: '/requests/:request_id/close',
    summary: 'Close a request',
    tags,
    schema: { params: RequestParams, response: withErrors({ 200: RequestBody }) },
    operation: operations.RequestClose,
    variables: ({ params }) => ({ id: params.request_id }),
    result: (data: RequestCloseMutation) => ({ body: restRequest(fromPayload(data.requestClose, 'request')) }),
  },
];

/** A request in its REST shape, for event payloads. */
export const renderRequest: Renderer = async (run, id) =>
  restRequest(found(((await run(operations.RequestGet, { id })) as RequestGetQuery).request, 'Request'));
