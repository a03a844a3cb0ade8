import { Type } from '@sinclair/typebox';
import {
  DocumentDeleteDocument,
  DocumentGetDocument,
  ItemDocumentListDocument,
  RequestDocumentListDocument,
  RequestDocumentsDeleteDocument,
  type ItemDocumentListQuery,
} from '../../generated/operations';
import { sendFile } from '../../kernel/http/files';
import { found, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { listQuery, NoContent, Uuid, withErrors } from '../../kernel/rest/schemas';
import { openFile } from '../files/file.service';
import { DocumentBody, restDocument } from './document.rest-shapes';
import { documentsByItem, getDocumentFile } from './document.service';
import { requestAnswers } from './document.answers';
import { zipDocuments } from './document.zip';

const tags = ['Documents'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ItemParams = Type.Object({ request_id: Uuid(), item_id: Uuid() });
const DocumentParams = Type.Object({ document_id: Uuid() });

const itemDocuments = (data: ItemDocumentListQuery) => found(found(data.request, 'Request').item, 'Item').documents;

export const documentRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/requests/:request_id/documents',
    summary: "List a request's submitted documents, oldest first",
    tags,
    schema: {
      params: RequestParams,
      querystring: listQuery('asc'),
      response: withErrors({ 200: Type.Array(DocumentBody) }),
    },
    operation: RequestDocumentListDocument,
    variables: ({ params, query }) => ({ requestId: params.request_id, first: query.limit }),
    result: (data) => ({ body: found(data.request, 'Request').documents.nodes.map(restDocument) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/requests/:request_id/documents',
    summary: 'Delete every document of a request',
    tags,
    schema: { params: RequestParams, response: withErrors({ 204: NoContent }) },
    operation: RequestDocumentsDeleteDocument,
    variables: ({ params }) => ({ requestId: params.request_id }),
    result: (data) => noContent(data.requestDocumentsDelete, 'deletedDocumentIds'),
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items/:item_id/documents',
    summary: "List an item's submitted documents",
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: Type.Array(DocumentBody) }) },
    operation: ItemDocumentListDocument,
    variables: ({ params }) => ({ requestId: params.request_id, itemId: params.item_id }),
    result: (data) => ({ body: itemDocuments(data).map(restDocument) }),
  }),
  restRow({
    method: 'GET',
    url: '/requests/:request_id/items/:item_id/download',
    summary: "An item's documents with their download URLs (204 when there is none)",
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: Type.Array(DocumentBody), 204: NoContent }) },
    operation: ItemDocumentListDocument,
    variables: ({ params }) => ({ requestId: params.request_id, itemId: params.item_id }),
    result: (data) => {
      const documents = itemDocuments(data);
      return documents.length ? { body: documents.map(restDocument) } : { status: 204 };
    },
  }),
  {
    method: 'GET',
    url: '/requests/:request_id/download',
    summary:
      "A zip of a request's answers (answers.json, answers.csv: a row per recipient and item) and documents and filled forms, a folder per item (204 when there is none)",
    tags,
    schema: { params: RequestParams, response: withErrors({ 204: NoContent }) },
    handle: async (ctx, { params }, _request, reply) => {
      const { request, items } = await documentsByItem(ctx, params.request_id);
      const answers = await requestAnswers(ctx.db, request.id);
      // Nothing received (no document, filled form or answer): nothing to zip.
      if (items.length === 0 && answers.every((row) => row.answer === null)) return { status: 204 };
      return sendFile(reply, {
        stream: zipDocuments(ctx, items, answers),
        name: `${request.name}.zip`,
        type: 'application/zip',
      });
    },
  },
  restRow({
    method: 'GET',
    url: '/documents/:document_id',
    summary: 'Get a document',
    tags,
    schema: { params: DocumentParams, response: withErrors({ 200: DocumentBody }) },
    operation: DocumentGetDocument,
    variables: ({ params }) => ({ id: params.document_id }),
    result: (data) => ({ body: restDocument(found(data.document, 'Document')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/documents/:document_id',
    summary: 'Delete a document',
    tags,
    schema: { params: DocumentParams, response: withErrors({ 204: NoContent }) },
    operation: DocumentDeleteDocument,
    variables: ({ params }) => ({ id: params.document_id }),
    result: (data) => noContent(data.documentDelete, 'deletedDocumentId'),
  }),
  {
    method: 'GET',
    url: '/documents/:document_id/download',
    summary: 'Download a document (application/octet-stream)',
    tags,
    schema: { params: DocumentParams, response: withErrors({}, [404, 410, 422]) },
    handle: async (ctx, { params }, _request, reply) => {
      const { file, name } = await getDocumentFile(ctx, params.document_id);
      return sendFile(reply, { stream: await openFile(ctx, file), name, size: file.size });
    },
  },
];

/** A document in its REST shape, for event payloads. */
