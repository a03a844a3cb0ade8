import { loadRequiredRef } from '../../kernel/db/loaders';
import type { GraphQLContext } from '../../kernel/graphql/context';

/** A record with a file (an attachment, a document, a contract). */
type WithFile = { readonly file: { readonly id: string } };

const fileOf = (record: WithFile, ctx: GraphQLContext) => loadRequiredRef(record.file, ctx.loaders.fileById);

/** The fields attachments, documents and contracts all take from their stored file. */
export const fileFields = {
  name: async (record: WithFile, _args: unknown, ctx: GraphQLContext) => (await fileOf(record, ctx)).name,
  mimeType: async (record: WithFile, _args: unknown, ctx: GraphQLContext) => (await fileOf(record, ctx)).mimeType,
  size: async (record: WithFile, _args: unknown, ctx: GraphQLContext) => (await fileOf(record, ctx)).size,
  sha256: async (record: WithFile, _args: unknown, ctx: GraphQLContext) => (await fileOf(record, ctx)).sha256,
};
