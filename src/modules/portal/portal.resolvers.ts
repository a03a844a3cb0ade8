import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { signItem } from './portal.signing';
import {
  answerItem,
  deleteRecipientDocument,
  fillForm,
  recipientView,
  setNotApplicable,
  submitRequest,
} from './portal.service';

/** The item as the request now shows it (a change's payload). */
async function itemView(ctx: Parameters<typeof recipientView>[0], itemId: string) {
  return (await recipientView(ctx)).items.find((item) => item.id === itemId)!;
}

export const portalResolvers: Resolvers = {
  Query: {
    recipientRequest: (_root, _args, ctx) => recipientView(ctx),
  },
  Mutation: {
    recipientAnswer: (_root, { input }, ctx) =>
      payload(async () => ({ item: await itemView(ctx, await answerItem(ctx, input.itemId, input.answer)) })),
    recipientFormFill: (_root, { input }, ctx) =>
      payload(async () => ({ item: await itemView(ctx, await fillForm(ctx, input.itemId, input.answers)) })),
    recipientNotApplicable: (_root, { input }, ctx) =>
      payload(async () => ({ item: await itemView(ctx, await setNotApplicable(ctx, input.itemId, input.isNa)) })),
    recipientSign: (_root, { input }, ctx) =>
      payload(async () => ({ item: await itemView(ctx, await signItem(ctx, input)) })),
    recipientSubmit: (_root, { input }, ctx) =>
      payload(async () => {
        await submitRequest(ctx, input.comment);
        return { request: await recipientView(ctx) };
      }),
    recipientDocumentDelete: (_root, { input }, ctx) =>
      payload(async () => ({ deletedDocumentId: await deleteRecipientDocument(ctx, input.documentId, input.itemId) })),
  },
};
