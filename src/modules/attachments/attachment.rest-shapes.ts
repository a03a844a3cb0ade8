import { Type } from '@sinclair/typebox';
import type { RestAttachmentFragment } from '../../kernel/graphql/__generated__/operations';
import { restShape, type Field } from '../../kernel/rest/shape';

// The REST shape of attachments (item attachments add `download_url`, see attachment.rest.ts).

export const { schema: AttachmentBody, map: restAttachment } = restShape((field: Field<RestAttachmentFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  mime_type: Type.String(),
  creation_date: field(Type.String(), (attachment) => attachment.createdAt),
}));
