import { Type } from '@sinclair/typebox';
import type {
  RestShareDownloadFragment,
  RestShareFileFragment,
  RestShareFragment,
  RestShareRecipientFragment,
  RestShareSummaryFragment,
} from '../../generated/operations';
import { Nullable, StringEnum } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { AUTH_METHODS, SEND_METHODS } from '../recipients/recipient.enums';
import { languageToRest } from '../requests/request.rest-shapes';
import { SHARE_STATUSES } from './share.entities';

// The REST shape of a share. The reference writes the share API in camelCase (unlike the request
// API's snake_case), its create body as its answers: `title`, `recipients[].authMethod.questionText`,
// `expirationDate`, ...

const ShareFile = restShape((field: Field<RestShareFileFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  mimeType: Type.String(),
  sha256: Type.String(),
  createdAt: field(Type.String(), (file) => file.createdAt),
}));

const ShareRecipient = restShape((field: Field<RestShareRecipientFragment>) => ({
  id: Type.String(),
  email: field(Nullable(Type.String()), (r) => r.email ?? null),
  firstName: field(Nullable(Type.String()), (r) => r.firstName ?? null),
  lastName: field(Nullable(Type.String()), (r) => r.lastName ?? null),
  phone: field(Nullable(Type.String()), (r) => r.phone ?? null),
  authMethod: field(Type.Object({ type: StringEnum(AUTH_METHODS), questionText: Nullable(Type.String()) }), (r) => ({
    type: r.authMethod,
    questionText: r.questionText ?? null,
  })),
  sendMethod: StringEnum(SEND_METHODS),
  completionOrder: field(Nullable(Type.Integer()), (r) => r.completionOrder ?? null),
  link: Type.String(),
  password: Type.String(),
}));

export const { schema: ShareDownloadBody, map: restShareDownload } = restShape(
  (field: Field<RestShareDownloadFragment>) => ({
    id: Type.String(),
    recipientId: field(Type.String(), (d) => d.recipient.id),
    recipientEmail: field(Nullable(Type.String()), (d) => d.recipient.email ?? null),
    fileId: field(Nullable(Type.String()), (d) => d.file?.id ?? null),
    fileName: Type.String(),
    size: Type.Integer(),
    ip: field(Nullable(Type.String()), (d) => d.ip ?? null),
    userAgent: field(Nullable(Type.String()), (d) => d.userAgent ?? null),
    downloadedAt: Type.String(),
  }),
);

const summary = <S extends RestShareSummaryFragment>(field: Field<S>) => ({
  id: Type.String(),
  title: Type.String(),
  customMessage: field(Nullable(Type.String()), (s) => s.customMessage ?? null),
  language: field(Type.String(), (s) => languageToRest(s.language)),
  sendMethod: StringEnum(SEND_METHODS),
  status: StringEnum(SHARE_STATUSES),
  expirationDate: field(Nullable(Type.String()), (s) => s.expirationDate ?? null),
  deletionDate: field(Nullable(Type.String()), (s) => s.deletionDate ?? null),
  sentAt: field(Nullable(Type.String()), (s) => s.sentAt ?? null),
  filesDeletedAt: field(Nullable(Type.String()), (s) => s.filesDeletedAt ?? null),
  ownerId: field(Type.String(), (s) => s.owner.id),
  recipients: field(Type.Array(ShareRecipient.schema), (s) => s.recipients.map(ShareRecipient.map)),
  files: field(Type.Array(ShareFile.schema), (s) => s.files.map(ShareFile.map)),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** A share in a list: without its downloads. */
export const { schema: ShareSummaryBody, map: restShareSummary } = restShape((field: Field<RestShareSummaryFragment>) =>
  summary(field),
);

/** A share by id: with its download log (the newest MAX_LISTED_DOWNLOADS, and how many there are). */
export const { schema: ShareBody, map: restShare } = restShape((field: Field<RestShareFragment>) => ({
  ...summary(field),
  downloadCount: field(Type.Integer(), (s) => s.downloads.totalCount),
  downloads: field(Type.Array(ShareDownloadBody), (s) => s.downloads.nodes.map(restShareDownload)),
}));
