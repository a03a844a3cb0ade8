import { Type } from '@sinclair/typebox';
import {
  BulkSendCreateDocument,
  BulkSendGetDocument,
  BulkSendListDocument,
  type BulkSendCreateMutation,
} from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { Body, listQuery, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { receiveFile } from '../../kernel/http/files';
import { readWhole } from '../files/file.service';
import { requireTemplate } from '../templates/template.service';
import { rowsFromCsv } from './bulk-send.csv';
import { MAX_BULK_SEND_CSV_BYTES, MAX_BULK_SEND_ROWS } from './bulk-send.limits';
import {
  BulkSendBody,
  bulkSendRowFromRest,
  BulkSendRowBody,
  restBulkSend,
  type BulkSendRowRest,
} from './bulk-send.rest-shapes';

const tags = ['Bulk sends'];
const IdParams = Type.Object({ id: Uuid() });

const created = (data: BulkSendCreateMutation) => ({
  status: data.bulkSendCreate.replayed ? 200 : 202,
  body: restBulkSend(fromPayload(data.bulkSendCreate, 'bulkSend')),
});

export const bulkSendRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/templates/:id/bulk-sends',
    summary: `Send a template to many recipients, a request each (1 to ${MAX_BULK_SEND_ROWS} rows): 202 with the bulk send, whose job makes the requests; 200 with the first one for the same rows again`,
    tags,
    schema: {
      params: IdParams,
      body: Body({ rows: Type.Array(BulkSendRowBody) }, ['rows']),
      response: withErrors({ 200: BulkSendBody, 202: BulkSendBody }),
    },
    operation: BulkSendCreateDocument,
    variables: ({ params, body }) => ({
      input: { templateId: params.id, rows: body.rows.map((row: BulkSendRowRest) => bulkSendRowFromRest(row)) },
    }),
    result: created,
  }),
  restRow({
    method: 'POST',
    url: '/templates/:id/bulk-sends/csv',
    summary: `The same from a CSV file (multipart/form-data, part \`file\`, or the body as \`text/csv\`; ${MAX_BULK_SEND_CSV_BYTES / 1024} KiB at most): a header line naming the JSON rows' fields (\`first_name\`, \`email\`, … and \`user_metadata.<key>\`), then a recipient per line; problems name the file's lines`,
    tags,
    schema: { params: IdParams, response: withErrors({ 200: BulkSendBody, 202: BulkSendBody }, [404, 413, 422]) },
    receive: async (ctx, { params }, request) => {
      // Another organization's template is a 404 before its file is read.
      await requireTemplate(ctx, params.id);
      const file = await receiveFile(request, { raw: true, maxBytes: MAX_BULK_SEND_CSV_BYTES });
      const rows = rowsFromCsv(await readWhole(file.stream, MAX_BULK_SEND_CSV_BYTES));
      return { input: { templateId: params.id, rows } };
    },
    operation: BulkSendCreateDocument,
    result: created,
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
