import { attachmentIdsOf } from '../items/item.drafts';
import type { ItemPart } from '../items/item.parts';
import { attachFiles, findLibraryAttachments } from './attachment.service';

/** Library attachments a new item's input copies onto it; an item's attachments go with it. */
export const itemAttachmentsPart: ItemPart = {
  async prepareCreate(ctx, check, input) {
    const sources = await findLibraryAttachments(ctx, check, ['attachmentIds'], attachmentIdsOf(input));
    return async (tx, request, item) => {
      await attachFiles(tx, sources, request, item);
    };
  },
  async removeWith(tx, item) {
    const removed = await tx.rows<{ file_id: string }>('delete from attachment where item_id = ? returning file_id', [
      item.id,
    ]);
    return removed.map((attachment) => attachment.file_id);
  },
};
