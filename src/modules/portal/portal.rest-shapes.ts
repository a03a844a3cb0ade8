import { restUploadRules, UploadRulesOut } from '../items/item.upload-rules.rest';
import { Type } from '@sinclair/typebox';
import type {
  RestRecipientFileFragment,
  RestRecipientItemFragment,
  RestRecipientRequestFragment,
} from '../../generated/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { answerMap } from '../forms/form.service';
import { Layout, layoutToRest } from '../contracts/contract.rest-shapes';
import { BrandingBody, restBranding } from '../organizations/organization.rest-shapes';
import { languageToRest } from '../requests/request.rest-shapes';

// The recipient API's bodies (API-DECISIONS "The recipient side"), in the REST layer's snake_case.

export const { schema: RecipientFileBody, map: restRecipientFile } = restShape(
  (field: Field<RestRecipientFileFragment>) => ({
    id: Type.String(),
    file_name: Type.String(),
    content_type: Type.String(),
    size: Type.Integer(),
    download_url: field(Type.String(), (file) => file.downloadUrl),
  }),
);

type DocumentFragment = RestRecipientItemFragment['documents'][number];
const { schema: RecipientDocumentBody, map: restRecipientDocument } = restShape((field: Field<DocumentFragment>) => ({
  id: Type.String(),
  file_name: Type.String(),
  content_type: Type.String(),
  size: Type.Integer(),
  mine: Type.Boolean(),
  created_at: field(Type.String(), (document) => document.createdAt),
  download_url: field(Type.String(), (document) => document.downloadUrl),
}));

export const { schema: RecipientItemBody, map: restRecipientItem } = restShape(
  (field: Field<RestRecipientItemFragment>) => ({
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    type: field(Type.String(), (item) => item.kind),
    required: Type.Boolean(),
    status: Type.String(),
    is_na: Type.Boolean(),
    question_type: Nullable(Type.String()),
    answer: Nullable(Type.String()),
    contract_id: Nullable(Type.String()),
    signature_fields: field(
      Type.Array(
        Type.Object({
          id: Type.String(),
          type: Type.String(),
          placeholder: Nullable(Type.String()),
          layout: Nullable(Layout),
        }),
      ),
      (item) =>
        item.signatureFields.map(({ id, type, placeholder, layout }) => ({
          id,
          type,
          placeholder: placeholder ?? null,
          layout: layoutToRest(layout ?? null) as (typeof Layout)['static'] | null,
        })),
    ),
    form: field(
      Nullable(
        Type.Object({
          name: Type.String(),
          allow_file_upload: Type.Boolean(),
          fields: Type.Array(
            Type.Object({ name: Type.String(), default_value: Nullable(Type.String()), read_only: Type.Boolean() }),
          ),
        }),
      ),
      ({ form }) =>
        form && {
          name: form.name,
          allow_file_upload: form.allowFileUpload,
          fields: form.fields.map((f) => ({
            name: f.name,
            default_value: f.defaultValue ?? null,
            read_only: f.readOnly,
          })),
        },
    ),
    form_answers: field(
      Nullable(Type.Record(Type.String(), Type.String())),
      ({ formAnswers }) => formAnswers && answerMap(formAnswers),
    ),
    upload_rules: field(Nullable(UploadRulesOut), ({ uploadRules }) => uploadRules && restUploadRules(uploadRules)),
    documents: field(Type.Array(RecipientDocumentBody), (item) => item.documents.map(restRecipientDocument)),
    attachments: field(Type.Array(RecipientFileBody), (item) => item.attachments.map(restRecipientFile)),
  }),
);

export const { schema: RecipientRequestBody, map: restRecipientRequest } = restShape(
  (field: Field<RestRecipientRequestFragment>) => ({
    id: Type.String(),
    name: Type.String(),
    state: Type.String(),
    organization_name: Type.String(),
    owner_name: Type.String(),
    personal_message: Nullable(Type.String()),
    due_date: Nullable(Type.String()),
    expiration_date: Nullable(Type.String()),
    language: field(Type.String(), (request) => languageToRest(request.language)),
    percent_complete: Type.Number(),
    can_change: Type.Boolean(),
    require_complete_submission: Type.Boolean(),
    disable_submission_comments: Type.Boolean(),
    recipient: field(
      Type.Object({
        id: Type.String(),
        first_name: Nullable(Type.String()),
        last_name: Nullable(Type.String()),
        email: Nullable(Type.String()),
      }),
      ({ recipient }) => ({
        id: recipient.id,
        first_name: recipient.firstName ?? null,
        last_name: recipient.lastName ?? null,
        email: recipient.email ?? null,
      }),
    ),
    items: field(Type.Array(RecipientItemBody), (request) => request.items.map(restRecipientItem)),
    attachments: field(Type.Array(RecipientFileBody), (request) => request.attachments.map(restRecipientFile)),
    rejection: field(
      Nullable(
        Type.Object({ message: Type.String(), item_ids: Type.Array(Type.String()), rejected_at: Type.String() }),
      ),
      ({ rejection }) =>
        rejection
          ? { message: rejection.message, item_ids: rejection.itemIds, rejected_at: rejection.rejectedAt }
          : null,
    ),
    submissions: field(
      Type.Array(Type.Object({ created_at: Type.String(), outcome: Type.String(), comment: Nullable(Type.String()) })),
      (request) =>
        request.submissions.map((s) => ({ created_at: s.createdAt, outcome: s.outcome, comment: s.comment ?? null })),
    ),
    branding: field(BrandingBody, ({ branding }) => restBranding(branding)),
    confirmation: field(Nullable(Type.Object({ message: Type.String() })), ({ confirmation }) =>
      confirmation ? { message: confirmation.message } : null,
    ),
  }),
);
