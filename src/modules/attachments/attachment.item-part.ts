import { attachmentIdsOf } from '../items/item.drafts';
import type { ItemPart } from '../items/item.parts';
import { Attachment } from './attachment.entities';
import { attachFiles, findLibraryAttachments } from './attachment.service';

/** Library attachments a new item's input copies onto it; an item's attachments go with it. */
export const itemAttachmentsPart: ItemPart = {
  async prepareCreate(ctx, check, input) {
    const sources = await findLibraryAttachments(ctx, check, ['attachmentIds'], attachmentIdsOf(input));
    return (tx, request, item) => attachFiles(tx, sources, request, item);
  },
  async removeWith(tx, item) {
    const attachments = await tx.find(Attachment, { item: item.id });
    for (const attachment of attachments) tx.remove(attachment);
    return attachments.map((attachment) => attachment.file.id);
  },
};
