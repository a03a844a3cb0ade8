import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type {
  ItemCreateMutation,
  ItemDeleteMutation,
  ItemGetQuery,
  ItemListQuery,
  ItemUpdateMutation,
  ItemVerifyMutation,
} from '../../kernel/graphql/__generated__/operations';
import type { Renderer } from '../../kernel/events/outbox';
import { found, fromPayload, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { loadOperations } from '../../kernel/rest/operations';
import { NoContent, Nullable, Text, Uuid, withErrors, Body } from '../../kernel/rest/schemas';
import { ItemBodyA, ItemBodyB, ItemCreateBody, itemInputFromRest, restItemA, restItemB } from './item.rest-shapes';
import { MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME } from './item.limits';

const operations = loadOperations(
  join(__dirname, 'item.operations.graphql'),
  join(__dirname, '../attachments/attachment.operations.graphql'),
  join(__dirname, '../documents/document.operations.graphql'),
  join(__dirname, '../contracts/contract.operations.graphql'),
);

const tags = ['Request items'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ItemParams = Type.Object({ request_id: Uuid(), item_id: Uuid() });
const ItemUpdateBody = Body(
  { name: Text(MAX_ITEM_NAME, { minLength: 1 }), description: Nullable(Text(MAX_ITEM_DESCRIPTION)), required: Type.Boolean() });
const updateInput = (body: Record<string, unknown> = {}) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => ['name', 'description', 'required'].includes(key)));

export const itemRestRows: RestRow[] = [
  {
    method: 'POST',
    url: '/requests/:request_id/items',
    summary: 'Add an item to a request',
    tags,
    schema: { params: RequestParams, body: ItemCreateBody, response: withErrors({ 200: ItemBodyA }) },
    operation: operations.ItemCreate,
    variables: ({ params, body }) => ({ requestId: params.request_id, input: itemInputFromRest(body) }),
    result: (data: ItemCreateMutation) => ({ body: restItemA(fromPayload(data.itemCreate, 'item')) }),
  },
  {
    method: 'GET',
    url: '/requests/:request_id/items',
    summary: "List a request's items (shape B; shape A with API-Revision: 1)",
    tags,
    schema: { params: RequestParams, response: withErrors({ 200: Type.Union([Type.Array(ItemBodyB), Type.Array(ItemBodyA)]) }) },
    operation: operations.ItemList,
    variables: ({ params }) => ({ requestId: params.request_id }),
    result: (data: ItemListQuery, { revision }) => {
      const items = found(data.request, 'Request').items;
      return { body: revision === 1 ? items.map(restItemA) : items.map(restItemB) };
    },
  },
  {
    method: 'GET',
    url: '/requests/:request_id/items/:item_id',
    summary: 'Get an item',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: ItemBodyA }) },
    operation: operations.ItemGet,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data: ItemGetQuery) => ({ body: restItemA(found(data.request?.item, 'Item')) }),
  },
  {
    method: 'PATCH',
    url: '/requests/:request_id/items/:item_id',
    summary: "Update an item's name, description or required flag",
    tags,
    schema: { params: ItemParams, body: ItemUpdateBody, response: withErrors({ 200: ItemBodyA }) },
    operation: operations.ItemUpdate,
    variables: ({ params, body }) => ({ requestId: params.request_id, id: params.item_id, input: updateInput(body ?? {}) }),
    result: (data: ItemUpdateMutation) => ({ body: restItemA(fromPayload(data.itemUpdate, 'item')) }),
  },
  {
    method: 'DELETE',
    url: '/requests/:request_id/items/:item_id',
    summary: 'Delete an item',
    tags,
    schema: { params: ItemParams, response: withErrors({ 204: NoContent }) },
    operation: operations.ItemDelete,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data: ItemDeleteMutation) => noContent(data.itemDelete, 'deletedItemId'),
  },
  {
    method: 'POST',
    url: '/requests/:request_id/items/:item_id/verify',
    summary: 'Verify an item (status VERIFIED)',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: ItemBodyA }) },
    operation: operations.ItemVerify,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data: ItemVerifyMutation) => ({ body: restItemA(fromPayload(data.itemVerify, 'item')) }),
  },
];

/** An item in its REST shape (A, as every payload but the item list), for event payloads. */
export const renderItem: Renderer = async (run, id, requestId) =>
  restItemA(found(((await run(operations.ItemGet, { requestId, id })) as ItemGetQuery).request?.item, 'Item'));
