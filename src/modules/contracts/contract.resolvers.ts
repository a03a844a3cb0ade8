import { loadRequiredRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { fileFields } from '../files/file.resolvers';
import { editorLink } from './contract.editor-link';
import { deleteContract, getContract, listContracts, updateContract } from './contract.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

export const contractResolvers: Resolvers = {
  Query: {
    contract: (_root, { id }, ctx) => getContract(ctx, id),
    contracts: (_root, args, ctx) => listContracts(ctx, args),
  },
  Mutation: {
    contractUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ contract: await updateContract(ctx, id, input) })),
    contractDelete: (_root, { id }, ctx) => payload(async () => ({ deletedContractId: await deleteContract(ctx, id) })),
  },
  Contract: {
    ...fileFields,
    owner: (contract, _args, ctx, info) => loadRequiredRef(contract.owner, ctx.loaders.userById, info),
    annotations: (contract) => contract.annotations,
    fields: (contract) => contract.fields,
    annotationUrl: (contract, _args, ctx) => editorLink(ctx.settings, contract.id, ctx.viewer.userId),
    previewUrl: async (contract, _args, ctx) =>
      (await fileFields.mimeType(contract, undefined, ctx)) === 'application/pdf'
        ? `${ctx.settings.publicUrl}/contracts/${contract.id}/preview`
        : null,
  },
  ContractConnection: {
    ...countFields,
  },
  ESignatureItem: {
    contract: reads(['contractId'], (item, _args, ctx) =>
      item.contractId ? ctx.loaders.contractById.load(item.contractId) : null,
    ),
  },
};
