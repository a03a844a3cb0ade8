import { Type } from '@sinclair/typebox';
import { BulkSendCreateDocument, BulkSendGetDocument, BulkSendListDocument } from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { Body, listQuery, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_BULK_SEND_ROWS } from './bulk-send.limits';
import { BulkSendBody, bulkSendRowFromRest, BulkSendRowBody, restBulkSend } from './bulk-send.rest-shapes';

const tags = ['Bulk sends'];
const IdParams = Type.Object({ id: Uuid() });

export const bulkSendRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/templates/:id/bulk-sends',
    summary: `Send a template to many recipients, a request each (1 to ${MAX_BULK_SEND_ROWS} rows): 202 with the bulk send, whose job makes the requests; 200 with the first one for the same rows again`,
    tags,
    schema: {
      params: IdParams,
      body: Body({ rows: Type.Array(BulkSendRowBody) }, ['rows']),
      response: withErrors({ 200: BulkSendBody, 202: BulkSendBody }, [422]),
    },
    operation: BulkSendCreateDocument,
    variables: ({ params, body }) => ({
      input: { templateId: params.id, rows: body.rows.map((row) => bulkSendRowFromRest(row)) },
    }),
    result: (data) => ({
      status: data.bulkSendCreate.replayed ? 200 : 202,
      body: restBulkSend(fromPayload(data.bulkSendCreate, 'bulkSend')),
    }),
  }),
  restRow({
    method: 'GET',
    url: '/bulk-sends/:id',
    summary: 'Get a bulk send: where it stands, its counts and the rows refused at creation',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: BulkSendBody }) },
    operation: BulkSendGetDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => ({ body: restBulkSend(found(data.bulkSend, 'Bulk send')) }),
  }),
  restRow({
    method: 'GET',
    url: '/bulk-sends',
    summary: 'List bulk sends, newest first',
    tags,
    schema: {
      querystring: Query({ limit: listQuery('desc').properties.limit }),
      response: withErrors({ 200: Type.Array(BulkSendBody) }, [422]),
    },
    operation: BulkSendListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.bulkSends.nodes.map(restBulkSend) }),
  }),
];
