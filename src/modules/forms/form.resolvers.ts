import { countFields } from '../../kernel/graphql/pagination';
import { loadRequiredRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { createForm, deleteForm, getForm, listForms } from './form.service';
import { reads } from '../../kernel/graphql/projection';

export const formResolvers: Resolvers = {
  Query: {
    form: (_root, { id }, ctx) => getForm(ctx, id),
    forms: (_root, args, ctx) => listForms(ctx, args),
  },
  Mutation: {
    formCreate: (_root, { input }, ctx) => payload(async () => ({ form: await createForm(ctx, input) })),
    formDelete: (_root, { id }, ctx) => payload(async () => ({ deletedFormId: await deleteForm(ctx, id) })),
  },
  Form: {
    owner: (form, _args, ctx, info) => loadRequiredRef(form.owner, ctx.loaders.userById, info),
  },
  FormConnection: {
    ...countFields,
  },
  ItemForm: {
    // An item's form was of the item's organization when the item was made; it may be gone since.
    form: (itemForm, _args, ctx) => ctx.loaders.formById.load(itemForm.id),
  },
  UploadItem: {
    form: reads(['form'], (item) => item.form ?? null),
    formAnswers: reads(['formAnswers'], (item) => item.formAnswers ?? null),
  },
};
