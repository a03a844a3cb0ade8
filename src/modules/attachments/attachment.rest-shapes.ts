import { Type } from '@sinclair/typebox';
import type { RestAttachmentFragment } from '../../generated/operations';
import { Body, Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { AttachmentIds, FileRef, restFileRef } from '../items/item.rest-shapes';
import type { RequestRestPart } from '../requests/request.rest-parts';

// The REST shape of attachments, and
// the attachments of a request's create body and response.

export const { schema: AttachmentBody, map: restAttachment } = restShape((field: Field<RestAttachmentFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  mime_type: Type.String(),
  creation_date: field(Type.String(), (attachment) => attachment.createdAt),
  download_url: field(Type.String(), (attachment) => attachment.downloadUrl),
}));

const RequestAttachmentsBody = Body({ attachments: Nullable(AttachmentIds), attachment_ids: Nullable(AttachmentIds) });

export const requestAttachmentsRestPart: RequestRestPart<typeof RequestAttachmentsBody> = {
  createBody: RequestAttachmentsBody,
  input: (body) => ({ attachmentIds: body.attachments ?? body.attachment_ids }),
  response: (field) => ({ attachments: field(Type.Array(FileRef), (r) => r.attachments.map(restFileRef)) }),
};
