import type { ModuleDescriptor } from '../../kernel/module';
import { Attachment } from './attachment.entities';
import { attachmentLoaders } from './attachment.loaders';
import { attachmentResolvers } from './attachment.resolvers';
import { attachmentRestRows } from './attachment.rest';
import { getAttachment } from './attachment.service';
import { itemAttachmentsPart } from './attachment.item-part';
import { requestAttachmentsPart } from './attachment.request-creation';
import { itemParts } from '../items/item.parts';
import { requestAttachmentsRestPart } from './attachment.rest-shapes';
import { requestCreationParts } from '../requests/request.creation';
import { requestRestParts } from '../requests/request.rest-parts';
import { requestViewParts } from '../requests/request.view';
import { requestAttachmentsView } from './attachment.view';

export const attachmentsModule: ModuleDescriptor = {
  name: 'attachments',
  entities: [Attachment],
  loaders: attachmentLoaders,
  resolvers: attachmentResolvers,
  restRows: attachmentRestRows,
  nodes: { Attachment: { sql: 'select 1 from attachment where id = ? and organization_id = ?', load: getAttachment } },
  contributes: [
    requestCreationParts.contribute(requestAttachmentsPart),
    requestRestParts.contribute(requestAttachmentsRestPart),
    requestViewParts.contribute(requestAttachmentsView),
    itemParts.contribute(itemAttachmentsPart),
  ],
};
