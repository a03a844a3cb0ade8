import { Type } from '@sinclair/typebox';
import {
  AttachmentDeleteDocument,
  AttachmentGetDocument,
  AttachmentListDocument,
  ItemAttachmentListDocument,
  type ItemAttachmentListQuery,
} from '../../generated/operations';
import { receiveFile, sendFile } from '../../kernel/http/files';
import { found, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { listQuery, NoContent, Uuid, withErrors } from '../../kernel/rest/schemas';
import { openFile } from '../files/file.service';
import { AttachmentBody, restAttachment } from './attachment.rest-shapes';
import { getAttachmentFile, getItemAttachmentFile, uploadAttachment, uploadItemAttachment } from './attachment.service';

const tags = ['Attachments'];
const AttachmentParams = Type.Object({ attachment_id: Uuid() });
const ItemParams = Type.Object({ request_id: Uuid(), item_id: Uuid() });
const ItemAttachmentParams = Type.Object({ request_id: Uuid(), item_id: Uuid(), attachment_id: Uuid() });

const itemAttachments = (data: ItemAttachmentListQuery) =>
  found(found(data.request, 'Request').item, 'Item').attachments;

export const attachmentRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/attachments',
    summary: 'Upload a file into your library (multipart/form-data, part `file`)',
    tags,
    schema: { response: withErrors({ 200: AttachmentBody }, [413, 415, 422]) },
    receive: async (ctx, _input, request) => ({
      id: (
        await uploadAttachment(ctx, await receiveFile(request, { raw: false, maxBytes: ctx.settings.maxUploadBytes }))
      ).id,
    }),
    operation: AttachmentGetDocument,
    result: (data) => ({ body: restAttachment(found(data.attachment, 'Attachment')) }),
  }),
  restRow({
    method: 'GET',
    url: '/attachments',
    summary: 'List your library of attachments, newest first',
    tags,
    schema: { querystring: listQuery('desc'), response: withErrors({ 200: Type.Array(AttachmentBody) }, [422]) },
    operation: AttachmentListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.attachments.nodes.map(restAttachment) }),
  }),
  restRow({
    method: 'GET',
    url: '/attachments/:attachment_id',
    summary: 'Get an attachment of your library (or of a request you see)',
    tags,
    schema: { params: AttachmentParams, response: withErrors({ 200: AttachmentBody }) },
    operation: AttachmentGetDocument,
    variables: ({ params }) => ({ id: params.attachment_id }),
    result: (data) => ({ body: restAttachment(found(data.attachment, 'Attachment')) }),
  }),
  {
    method: 'GET',
    url: '/attachments/:attachment_id/download',
    summary: 'Download an attachment of your library (or of a request you see) (application/octet-stream)',
    tags,
    schema: { params: AttachmentParams, response: withErrors({}, [404, 410, 422]) },
    handle: async (ctx, { params }, _request, reply) => {
      const file = await getAttachmentFile(ctx, params.attachment_id);
      return sendFile(reply, { stream: await openFile(ctx, file), name: file.name, size: file.size });
    },
  },
  restRow({
    method: 'POST',
    url: '/requests/:request_id/items/:item_id/attachments',
    summary: 'Attach a file to an item (multipart/form-data, part `file`)',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: AttachmentBody }, [404, 413, 415, 422]) },
    receive: async (ctx, { params }, request) => {
      const upload = await receiveFile(request, { raw: false, maxBytes: ctx.settings.maxUploadBytes });
      return { id: (await uploadItemAttachment(ctx, params.request_id, params.item_id, upload)).id };
    },
    operation: AttachmentGetDocument,
    result: (data) => ({ body: restAttachment(found(data.attachment, 'Attachment')) }),
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items/:item_id/attachments',
    summary: "List an item's attachments",
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: Type.Array(AttachmentBody) }) },
    operation: ItemAttachmentListDocument,
    variables: ({ params }) => ({ requestId: params.request_id, itemId: params.item_id }),
    result: (data) => ({ body: itemAttachments(data).map(restAttachment) }),
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items/:item_id/attachments/:attachment_id',
    summary: 'Get an item attachment',
    tags,
    schema: { params: ItemAttachmentParams, response: withErrors({ 200: AttachmentBody }) },
    operation: ItemAttachmentListDocument,
    variables: ({ params }) => ({ requestId: params.request_id, itemId: params.item_id }),
    result: (data, { params }) => ({
      body: restAttachment(
        found(
          itemAttachments(data).find((a) => a.id === params.attachment_id),
          'Attachment',
        ),
      ),
    }),
  }),
  restRow({
    method: 'DELETE',
    url: '/requests/:request_id/items/:item_id/attachments/:attachment_id',
    summary: 'Delete an item attachment',
    tags,
    schema: { params: ItemAttachmentParams, response: withErrors({ 204: NoContent }) },
    operation: AttachmentDeleteDocument,
    variables: ({ params }) => ({ id: params.attachment_id, requestId: params.request_id, itemId: params.item_id }),
    result: (data) => noContent(data.attachmentDelete, 'deletedAttachmentId'),
  }),
  {
    method: 'GET',
    // The spec writes /requests/{requestId}/items/{itemId}/attachments/{attachmentId}/download; one
    // name per position keeps the router unambiguous.
    url: '/requests/:request_id/items/:item_id/attachments/:attachment_id/download',
    summary: 'Download an item attachment (application/octet-stream)',
    tags,
    schema: { params: ItemAttachmentParams, response: withErrors({}, [404, 410, 422]) },
    handle: async (ctx, { params }, _request, reply) => {
      const file = await getItemAttachmentFile(ctx, params.request_id, params.item_id, params.attachment_id);
      return sendFile(reply, { stream: await openFile(ctx, file), name: file.name, size: file.size });
    },
  },
];
