import type { RequestCreationPart } from '../requests/request.creation';
import { attachmentIdsOf } from '../items/item.drafts';
import { RequestItem } from '../items/item.entities';
import type { Attachment } from './attachment.entities';
import { attachFiles, findLibraryAttachments } from './attachment.service';

/** Library attachments a new request's input copies onto the request and onto its given items. */
export const requestAttachmentsPart: RequestCreationPart = {
  field: 'attachmentIds',
  async prepare(ctx, check, input) {
    const requestSources = await findLibraryAttachments(ctx, check, ['attachmentIds'], input.attachmentIds);
    const itemSources: Attachment[][] = [];
    for (const [index, item] of (input.items ?? []).entries()) {
      itemSources.push(
        await findLibraryAttachments(ctx, check, ['items', index, 'attachmentIds'], attachmentIdsOf(item)),
      );
    }
    let requestFiles: Attachment[] = [];
    let itemFiles: Attachment[][] = [];
    return {
      // The copies are managed entities.
      managed: requestSources.length > 0 || itemSources.some((sources) => sources.length > 0),
      afterInsert(tx, { request, recordsOf }) {
        requestFiles = attachFiles(tx, requestSources, request, null);
        // Given items only: items copied from a template have no attachments to copy.
        itemFiles = recordsOf(RequestItem).map((item, index) =>
          input.items ? attachFiles(tx, itemSources[index], request, item) : [],
        );
      },
      prime(loaders, { request, recordsOf }) {
        loaders.attachmentsByRequest.prime(request.id, requestFiles);
        recordsOf(RequestItem).forEach((item, index) => loaders.attachmentsByItem.prime(item.id, itemFiles[index]));
      },
    };
  },
};
