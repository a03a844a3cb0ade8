import { loadRequiredRef } from '../../kernel/db/loaders';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { fileFields } from '../files/file.resolvers';
import type { RequestItemRow } from '../items/item.entities';
import { deleteDocument, deleteRequestDocuments, getDocument, listRequestDocuments } from './document.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

const itemDocuments = {
  documents: reads(['id'], (item: RequestItemRow, _args: unknown, ctx: GraphQLContext) =>
    ctx.loaders.documentsByItem.load(item.id),
  ),
};

export const documentResolvers: Resolvers = {
  Query: {
    document: (_root, { id }, ctx) => getDocument(ctx, id),
  },
  Mutation: {
    documentDelete: (_root, { id }, ctx) => payload(async () => ({ deletedDocumentId: await deleteDocument(ctx, id) })),
    requestDocumentsDelete: (_root, { requestId }, ctx) =>
      payload(async () => ({ deletedDocumentIds: await deleteRequestDocuments(ctx, requestId) })),
  },
  Document: {
    ...fileFields,
    request: (document, _args, ctx, info) => loadRequiredRef(document.request, ctx.loaders.requestById, info),
    item: async (document, _args, ctx) => {
      const items = await ctx.loaders.itemsByRequest.load(document.request.id);
      return items.find((item) => item.id === document.item.id)!;
    },
    downloadUrl: (document, _args, ctx) => `${ctx.settings.publicUrl}/documents/${document.id}/download`,
  },
  DocumentConnection: {
    ...countFields,
  },
  Request: {
    documents: (request, args, ctx) => listRequestDocuments(ctx, request, args),
    documentsDownloadUrl: (request, _args, ctx) => `${ctx.settings.publicUrl}/requests/${request.id}/download`,
  },
  UploadItem: itemDocuments,
  ESignatureItem: itemDocuments,
  QuestionItem: itemDocuments,
};
