import type { RequestCreationPart } from '../requests/request.creation';
import { Recipient } from '../recipients/recipient.entities';
import { checkContractIds } from '../contracts/contract.service';
import { itemForms } from '../forms/form.service';
import { draftFromInput, formRefOf, type ItemDraft } from './item.drafts';
import { RequestItem } from './item.entities';
import { insertItems } from './item.service';

/** The items a new request's input gives, assigned to its first recipient. */
export const requestItemsPart: RequestCreationPart = {
  field: 'items',
  async prepare(ctx, check, input) {
    const drafts = (input.items ?? []).map((item, index) =>
      draftFromInput(check, ['items', index], item, ctx.settings),
    );
    await checkContractIds(
      ctx,
      check,
      drafts.map((draft, index) => ({ path: ['items', index], contractId: draft?.contractId ?? null })),
    );
    const forms = await itemForms(
      ctx,
      check,
      (input.items ?? []).map((item, index) => formRefOf(['items', index], item)),
    );
    drafts.forEach((draft, index) => draft && (draft.form = forms[index]));
    return {
      // Without items in the input, a template's items (templates' part) stand in.
      write: async (tx, { request, recordsOf }) =>
        input.items
          ? [[RequestItem, await insertItems(tx, request, drafts as ItemDraft[], recordsOf(Recipient)[0] ?? null, 0)]]
          : [],
    };
  },
};
