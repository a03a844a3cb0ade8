import { isUuid } from '../../kernel/validation/input-check';
import type { RequestCreationPart } from '../requests/request.creation';
import { Recipient } from '../recipients/recipient.entities';
import { RequestItem } from '../items/item.entities';
import { insertItems } from '../items/item.service';
import { Template } from './template.entities';
import {
  replaceTemplateItems,
  requireTemplate,
  templateDraftsFromItems,
  templateItemsForRequest,
} from './template.service';

/** A template's defaults for a new request, its items when the input gives none, and `overwriteTemplateItems`. */
export const requestTemplatePart: RequestCreationPart = {
  field: 'templateId',
  async defaults(ctx, input, shared) {
    if (!input.templateId || !isUuid(input.templateId)) return null;
    const key = `template:${input.templateId}`;
    if (!shared.has(key)) shared.set(key, requireTemplate(ctx, input.templateId));
    const template = (await shared.get(key)) as Awaited<ReturnType<typeof requireTemplate>>;
    return {
      defaults: {
        templateId: template.id,
        name: template.defaultTitle ?? template.name,
        personalMessage: template.personalMessage ?? null,
        language: template.language,
        reminders: template.reminders,
        dueDateInterval: template.dueDateInterval ?? null,
      },
      async write(tx, { request, recordsOf }) {
        if (!input.items) {
          const drafts = await templateItemsForRequest(tx, template);
          return [[RequestItem, await insertItems(tx, request, drafts, recordsOf(Recipient)[0] ?? null, 0)]];
        }
        if (!input.overwriteTemplateItems) return [];
        // The given items, written by the items' part before this one.
        await replaceTemplateItems(tx, template, templateDraftsFromItems(recordsOf(RequestItem)));
        // The template changed: its `updatedAt` moves.
        await tx.update(Template, template.id, {});
        return [];
      },
    };
  },
};
