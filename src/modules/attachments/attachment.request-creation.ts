import type { RequestCreationPart } from '../requests/request.creation';
import { attachmentIdsOf } from '../items/item.drafts';
import { RequestItem } from '../items/item.entities';
import { Attachment, type AttachmentRow } from './attachment.entities';
import { attachmentCopies, findLibraryAttachments } from './attachment.service';

/** Library attachments a new request's input copies onto the request and onto its given items. */
export const requestAttachmentsPart: RequestCreationPart = {
  field: 'attachmentIds',
  async prepare(ctx, check, input) {
    const requestSources = await findLibraryAttachments(ctx, check, ['attachmentIds'], input.attachmentIds);
    const itemSources: AttachmentRow[][] = [];
    for (const [index, item] of (input.items ?? []).entries()) {
      itemSources.push(
        await findLibraryAttachments(ctx, check, ['items', index, 'attachmentIds'], attachmentIdsOf(item)),
      );
    }
    return {
      // One statement for the request's copies and its items'.
      async write(tx, { request, recordsOf }) {
        const copies = await tx.insert(Attachment, [
          ...attachmentCopies(requestSources, request, null),
          // Given items only: items copied from a template have no attachments to copy.
          ...(input.items
            ? recordsOf(RequestItem).flatMap((item, index) => attachmentCopies(itemSources[index], request, item))
            : []),
        ]);
        return [[Attachment, copies]];
      },
    };
  },
};
