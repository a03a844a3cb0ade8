import type { ModuleDescriptor } from '../../kernel/module';
import { Attachment } from './attachment.entities';
import { attachmentLoaders } from './attachment.loaders';
import { attachmentResolvers } from './attachment.resolvers';
import { attachmentRestRows } from './attachment.rest';
import { getAttachment } from './attachment.service';

export const attachmentsModule: ModuleDescriptor = {
  name: 'attachments',
  entities: [Attachment],
  loaders: attachmentLoaders,
  resolvers: attachmentResolvers,
  restRows: attachmentRestRows,
  nodes: { Attachment: { sql: 'select 1 from attachment where id = ? and organization_id = ?', load: getAttachment } },
};
