import { Type } from '@sinclair/typebox';
import {
  ItemCreateDocument,
  ItemDeleteDocument,
  ItemGetDocument,
  ItemListDocument,
  ItemUpdateDocument,
  ItemVerifyDocument,
  RequestRejectDocument,
  RequestVerifyDocument,
} from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { NoContent, Nullable, Text, Uuid, withErrors, Body } from '../../kernel/rest/schemas';
import { UploadRulesBody, uploadRulesInputFromRest } from './item.upload-rules.rest';
import { ItemBodyA, ItemBodyB, ItemCreateBody, itemInputFromRest, restItemA, restItemB } from './item.rest-shapes';
import { MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME, MAX_REJECTION_MESSAGE } from './item.limits';
import { MAX_ITEMS } from '../requests/request.limits';
import { requestRest, restRequest } from '../requests/request.rest-shapes';

const tags = ['Request items'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ItemParams = Type.Object({ request_id: Uuid(), item_id: Uuid() });
const ItemUpdateBody = Body({
  name: Text(MAX_ITEM_NAME, { minLength: 1 }),
  description: Nullable(Text(MAX_ITEM_DESCRIPTION)),
  required: Type.Boolean(),
  upload_rules: Nullable(UploadRulesBody),
});
const updateInput = (body: (typeof ItemUpdateBody)['static'] & Record<string, unknown> = {}) => ({
  ...Object.fromEntries(Object.entries(body).filter(([key]) => ['name', 'description', 'required'].includes(key))),
  ...('upload_rules' in body && { uploadRules: uploadRulesInputFromRest(body.upload_rules) }),
});

export const itemRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/requests/:request_id/items',
    summary: 'Add an item to a request',
    tags,
    schema: { params: RequestParams, body: ItemCreateBody, response: withErrors({ 200: ItemBodyA }) },
    operation: ItemCreateDocument,
    variables: ({ params, body }) => ({ requestId: params.request_id, input: itemInputFromRest(body) }),
    result: (data) => ({ body: restItemA(fromPayload(data.itemCreate, 'item')) }),
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items',
    summary: "List a request's items (shape B; shape A with API-Revision: 1)",
    tags,
    schema: {
      params: RequestParams,
      response: withErrors({ 200: Type.Union([Type.Array(ItemBodyB), Type.Array(ItemBodyA)]) }),
    },
    operation: ItemListDocument,
    variables: ({ params }) => ({ requestId: params.request_id }),
    result: (data, { revision }) => {
      const items = found(data.request, 'Request').items;
      return { body: revision === 1 ? items.map(restItemA) : items.map(restItemB) };
    },
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items/:item_id',
    summary: 'Get an item',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: ItemBodyA }) },
    operation: ItemGetDocument,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data) => ({ body: restItemA(found(data.request?.item, 'Item')) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/requests/:request_id/items/:item_id',
    summary: "Update an item's name, description or required flag",
    tags,
    schema: { params: ItemParams, body: ItemUpdateBody, response: withErrors({ 200: ItemBodyA }) },
    operation: ItemUpdateDocument,
    variables: ({ params, body }) => ({
      requestId: params.request_id,
      id: params.item_id,
      input: updateInput(body ?? {}),
    }),
    result: (data) => ({ body: restItemA(fromPayload(data.itemUpdate, 'item')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/requests/:request_id/items/:item_id',
    summary: 'Delete an item',
    tags,
    schema: { params: ItemParams, response: withErrors({ 204: NoContent }) },
    operation: ItemDeleteDocument,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data) => noContent(data.itemDelete, 'deletedItemId'),
  }),
  restRow({
    method: 'POST',
    url: '/requests/:request_id/items/:item_id/verify',
    summary: 'Verify an item (status VERIFIED)',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: ItemBodyA }) },
    operation: ItemVerifyDocument,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.item_id }),
    result: (data) => ({ body: restItemA(fromPayload(data.itemVerify, 'item')) }),
  }),
];

const RejectBody = Body(
  {
    message: Text(MAX_REJECTION_MESSAGE, { minLength: 1 }),
    item_ids: Nullable(
      Type.Array(Uuid(), { maxItems: MAX_ITEMS, description: 'items to redo; by default every item not verified' }),
    ),
  },
  ['message'],
);

/** The owner's review, answered with the request (whose shape exists once the modules are folded). */
export function reviewRestRows(): RestRow[] {
  const { ResponseBody } = requestRest();
  return [
    restRow({
      method: 'POST',
      url: '/requests/:request_id/verify',
      summary: 'Verify a submitted request and every item of it',
      tags: ['Requests'],
      schema: { params: RequestParams, response: withErrors({ 200: ResponseBody }) },
      operation: RequestVerifyDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: restRequest(fromPayload(data.requestVerify, 'request')) }),
    }),
    restRow({
      method: 'POST',
      url: '/requests/:request_id/reject',
      summary: 'Send a submitted request back for changes',
      tags: ['Requests'],
      schema: { params: RequestParams, body: RejectBody, response: withErrors({ 200: ResponseBody }) },
      operation: RequestRejectDocument,
      variables: ({ params, body }) => ({
        id: params.request_id,
        input: { message: body.message, itemIds: body.item_ids },
      }),
      result: (data) => ({ body: restRequest(fromPayload(data.requestReject, 'request')) }),
    }),
  ];
}
