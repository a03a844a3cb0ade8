import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import {
  ContractDeleteDocument,
  ContractGetDocument,
  ContractListDocument,
  ContractUpdateDocument,
} from '../../generated/operations';
import { receiveFile, sendFile } from '../../kernel/http/files';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { listQuery, NoContent, Query, Text, Uuid, ValidationBody, withErrors } from '../../kernel/rest/schemas';
import { previewContract } from './contract.preview';
import { ContractBody, contractUpdateInputFromRest, ContractUpdateBody, restContract } from './contract.rest-shapes';
import { uploadContract } from './contract.service';
import { MAX_CONTRACT_BYTES } from './contract.limits';
import { MAX_RAW_UPLOAD_NAME } from '../files/file.limits';

const tags = ['E-signature documents'];
const ContractParams = Type.Object({ contract_id: Uuid() });
const UploadQuery = Query({
  name: Text(MAX_RAW_UPLOAD_NAME, { description: 'the file name, when the body is the raw file' }),
});

export const contractRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/contracts',
    summary: 'Upload a document to e-sign: PDF, DOC or DOCX, as multipart (part `file`) or as the raw body',
    tags,
    schema: { querystring: UploadQuery, response: withErrors({ 200: ContractBody }, [413, 415, 422]) },
    receive: async (ctx, { query }, request) => {
      const upload = await receiveFile(request, {
        raw: true,
        maxBytes: Math.min(MAX_CONTRACT_BYTES, ctx.settings.maxUploadBytes),
        name: query.name,
      });
      return { id: (await uploadContract(ctx, upload)).id };
    },
    operation: ContractGetDocument,
    result: (data) => ({ body: restContract(found(data.contract, 'Contract')) }),
  }),
  restRow({
    method: 'GET',
    url: '/contracts',
    summary: "List the organization's contracts, newest first",
    tags,
    schema: { querystring: listQuery('desc'), response: withErrors({ 200: Type.Array(ContractBody) }, [422]) },
    operation: ContractListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.contracts.nodes.map(restContract) }),
  }),
  restRow({
    method: 'GET',
    url: '/contracts/:contract_id',
    summary: 'Get a contract',
    tags,
    schema: { params: ContractParams, response: withErrors({ 200: ContractBody }) },
    operation: ContractGetDocument,
    variables: ({ params }) => ({ id: params.contract_id }),
    result: (data) => ({ body: restContract(found(data.contract, 'Contract')) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/contracts/:contract_id',
    summary: "Replace a contract's annotations or fields (400 for bad shapes)",
    tags,
    badBodyStatus: 400,
    schema: {
      params: ContractParams,
      body: ContractUpdateBody,
      response: { ...withErrors({ 200: ContractBody }), 400: ValidationBody },
    },
    operation: ContractUpdateDocument,
    variables: ({ params, body }) => ({ id: params.contract_id, input: contractUpdateInputFromRest(body ?? {}) }),
    // Every rule contractUpdate checks is about the shape of annotations and fields.
    result: (data) => ({ body: restContract(fromPayload(data.contractUpdate, 'contract', 400)) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/contracts/:contract_id',
    summary: 'Delete a contract (422 while an item of an open request uses it)',
    tags,
    schema: { params: ContractParams, response: withErrors({ 204: NoContent }) },
    operation: ContractDeleteDocument,
    variables: ({ params }) => ({ id: params.contract_id }),
    result: (data) => noContent(data.contractDelete, 'deletedContractId'),
  }),
  {
    method: 'GET',
    url: '/contracts/:contract_id/preview',
    summary: 'The PDF with its fields and annotations drawn (PDF contracts only, else 415)',
    tags,
    schema: { params: ContractParams, response: withErrors({}, [404, 410, 415, 422]) },
    handle: async (ctx, { params }, _request, reply) => {
      const { name, bytes } = await previewContract(ctx, params.contract_id);
      return sendFile(reply, {
        stream: Readable.from([Buffer.from(bytes)]),
        name,
        size: bytes.length,
        type: 'application/pdf',
        inline: true,
      });
    },
  },
];
