import { isUuid } from '../../kernel/validation/input-check';
import type { RequestCreationPart } from '../requests/request.creation';
import { Recipient } from '../recipients/recipient.entities';
import { RequestItem } from '../items/item.entities';
import { newItems } from '../items/item.service';
import {
  replaceTemplateItems,
  requireTemplate,
  templateDraftsFromItems,
  templateItemsForRequest,
} from './template.service';

/** A template's defaults for a new request, its items when the input gives none, and `overwriteTemplateItems`. */
export const requestTemplatePart: RequestCreationPart = {
  field: 'templateId',
  async defaults(ctx, input) {
    if (!input.templateId || !isUuid(input.templateId)) return null;
    const template = await requireTemplate(ctx, input.templateId);
    return {
      defaults: {
        templateId: template.id,
        name: template.defaultTitle ?? template.name,
        personalMessage: template.personalMessage ?? null,
        language: template.language,
        reminders: template.reminders,
        dueDateInterval: template.dueDateInterval ?? null,
      },
      // Its items are read, and saved back, through the entity manager.
      managed: !input.items || Boolean(input.overwriteTemplateItems),
      records: async (tx, { request, recordsOf }) =>
        input.items
          ? null
          : [
              RequestItem,
              newItems(tx, request, await templateItemsForRequest(tx, template), recordsOf(Recipient)[0] ?? null, 0),
            ],
      async afterInsert(tx, { recordsOf }) {
        if (!input.items || !input.overwriteTemplateItems) return;
        await replaceTemplateItems(tx, template, templateDraftsFromItems(recordsOf(RequestItem)));
        template.updatedAt = new Date();
      },
    };
  },
};
