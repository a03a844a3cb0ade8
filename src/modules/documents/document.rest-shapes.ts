import { Type } from '@sinclair/typebox';
import type { RestDocumentFragment } from '../../generated/operations';
import { restShape, type Field } from '../../kernel/rest/shape';

// The REST shape of submitted documents.

export const { schema: DocumentBody, map: restDocument } = restShape((field: Field<RestDocumentFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  mime: field(Type.String(), (document) => document.mimeType),
  size: Type.Integer(),
  sha256: Type.String(),
  request_id: field(Type.String(), (document) => document.request.id),
  item_id: field(Type.String(), (document) => document.item.id),
  download_url: Type.String(),
  created_at: Type.String(),
}));
