import { Type } from '@sinclair/typebox';
import type { RestContractPartsFragment, RestItemAFragment, RestItemBFragment } from '../../generated/operations';
import type { RequestItemInput } from '../../generated/resolvers-types';
import { Nullable, StringEnum, Text, Uuid, Body } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { contractPartFields } from '../contracts/contract.rest-shapes';
import { ItemFormBody, itemFormInputFromRest, ItemFormOut, restItemForm } from '../forms/form.rest-shapes';
import { answerMap } from '../forms/form.service';
import { MAX_ITEMS } from '../requests/request.limits';
import type { RequestRestPart } from '../requests/request.rest-parts';
import { QUESTION_TYPES } from './item.enums';
import { restUploadRules, UploadRulesBody, UploadRulesOut, uploadRulesInputFromRest } from './item.upload-rules.rest';
import { MAX_ANSWER, MAX_ATTACHMENT_IDS, MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME } from './item.limits';

// The spec's shapes of items: A (inside requests and templates, and item create/get/update) and B
// (the item list of the later revision), with the mapping of CreateRequestItem onto GraphQL, and the
// `items` of a request's create body and response.

/** Ids of attachments of the caller's library, copied onto a request or item at creation. */
export const AttachmentIds = Type.Array(Uuid('the id of an attachment of your library'), {
  maxItems: MAX_ATTACHMENT_IDS,
});

/** CreateRequestItem: the fields of shape A, a question part for QUESTION, contractId for E_SIGNATURE. */
export const ItemCreateBody = Body(
  {
    name: Text(MAX_ITEM_NAME, { minLength: 1 }),
    type: StringEnum(
      ['UPLOAD', 'STANDARD', 'E_SIGNATURE', 'QUESTION'] as const,
      'UPLOAD (or STANDARD), E_SIGNATURE or QUESTION',
    ),
    description: Nullable(Text(MAX_ITEM_DESCRIPTION)),
    required: Nullable(Type.Boolean()),
    answer: Nullable(Text(MAX_ANSWER)),
    question: Nullable(Body({ type: Nullable(StringEnum(QUESTION_TYPES)), answer: Nullable(Text(MAX_ANSWER)) })),
    contractId: Nullable(Uuid()),
    contract_id: Nullable(Uuid()),
    attachments: Nullable(AttachmentIds),
    attachment_ids: Nullable(AttachmentIds),
    form: Nullable(ItemFormBody),
    upload_rules: Nullable(UploadRulesBody),
  },
  ['name', 'type'],
);
type ItemCreateBody = (typeof ItemCreateBody)['static'];

export function itemInputFromRest(body: ItemCreateBody): RequestItemInput {
  const base = {
    name: body.name,
    description: body.description,
    required: body.required,
    attachmentIds: body.attachments ?? body.attachment_ids,
  };
  switch (body.type) {
    case 'E_SIGNATURE':
      return { eSignature: { ...base, contractId: body.contractId ?? body.contract_id } };
    case 'QUESTION':
      return { question: { ...base, questionType: body.question?.type, answer: body.question?.answer ?? body.answer } };
    default:
      return {
        upload: {
          ...base,
          form: itemFormInputFromRest(body.form),
          uploadRules: uploadRulesInputFromRest(body.upload_rules),
        },
      };
  }
}

const ItemTypeA = StringEnum(['UPLOAD', 'E_SIGNATURE', 'QUESTION'] as const);

export const { schema: ItemBodyA, map: restItemA } = restShape((field: Field<RestItemAFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  type: field(ItemTypeA, (item) => item.kind),
  description: Nullable(Type.String()),
  required: Type.Boolean(),
  answer: field(Nullable(Type.String()), (item) => ('answer' in item ? item.answer : null)),
  verified: Type.Boolean(),
  is_na: Type.Boolean(),
  form: field(Nullable(ItemFormOut), (item) => ('form' in item && item.form ? restItemForm(item.form) : null)),
  form_answers: field(Nullable(Type.Record(Type.String(), Type.String())), (item) =>
    'formAnswers' in item && item.formAnswers ? answerMap(item.formAnswers) : null,
  ),
  upload_rules: field(Nullable(UploadRulesOut), (item) =>
    'uploadRules' in item && item.uploadRules ? restUploadRules(item.uploadRules) : null,
  ),
}));

const RequestItemsBody = Body({ items: Nullable(Type.Array(ItemCreateBody, { maxItems: MAX_ITEMS })) });

export const requestItemsRestPart: RequestRestPart<typeof RequestItemsBody> = {
  createBody: RequestItemsBody,
  input: (body) => ({ items: body.items == null ? body.items : body.items.map(itemInputFromRest) }),
  response: (field) => ({ items: field(Type.Array(ItemBodyA), (r) => r.items.map(restItemA)) }),
};

/** An attachment or document inside another record: `{id, name, mime}`. */
export const { schema: FileRef, map: restFileRef } = restShape(
  (field: Field<{ id: string; name: string; mimeType: string }>) => ({
    id: Type.String(),
    name: Type.String(),
    mime: field(Type.String(), (file) => file.mimeType),
  }),
);

const NO_ASSIGNEE = { email: null, firstName: null, lastName: null, phone: null };

const { schema: ESignature, map: restESignature } = restShape((field: Field<RestContractPartsFragment>) => ({
  contractId: field(Type.String(), (contract) => contract.id),
  ...contractPartFields(field),
}));

/** An item's form in shape B (camelCase, as the rest of it), with the recipient's answers. */
const FormB = Type.Object({
  id: Type.String(),
  name: Type.String(),
  allowFileUpload: Type.Boolean(),
  fields: Type.Record(Type.String(), Type.Object({ defaultValue: Nullable(Type.String()), readOnly: Type.Boolean() })),
  answers: Nullable(Type.Record(Type.String(), Type.String())),
});

export const { schema: ItemBodyB, map: restItemB } = restShape((field: Field<RestItemBFragment>) => ({
  id: Type.String(),
  type: field(StringEnum(['STANDARD', 'E_SIGNATURE', 'QUESTION'] as const), (item) =>
    item.kind === 'UPLOAD' ? 'STANDARD' : item.kind,
  ),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: StringEnum(['INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED'] as const),
  required: Type.Boolean(),
  questions: field(
    Type.Optional(
      Type.Object({ id: Type.String(), questionText: Type.String(), questionAnswer: Nullable(Type.String()) }),
    ),
    (item) =>
      item.kind === 'QUESTION'
        ? { id: item.id, questionText: item.name, questionAnswer: 'answer' in item ? item.answer : null }
        : undefined,
  ),
  eSignature: field(Type.Optional(ESignature), (item) =>
    'contract' in item && item.contract ? restESignature(item.contract) : undefined,
  ),
  form: field(Type.Optional(FormB), (item) =>
    'form' in item && item.form
      ? {
          id: item.form.id,
          name: item.form.name,
          allowFileUpload: item.form.allowFileUpload,
          fields: Object.fromEntries(
            item.form.fields.map((f) => [f.name, { defaultValue: f.defaultValue ?? null, readOnly: f.readOnly }]),
          ),
          answers: item.formAnswers ? answerMap(item.formAnswers) : null,
        }
      : undefined,
  ),
  attachments: field(Type.Array(FileRef), (item) => item.attachments.map(restFileRef)),
  assignedTo: field(
    Type.Object({
      email: Nullable(Type.String()),
      firstName: Nullable(Type.String()),
      lastName: Nullable(Type.String()),
      phone: Nullable(Type.String()),
    }),
    (item) => item.assignedTo ?? NO_ASSIGNEE,
  ),
  documents: field(Type.Array(FileRef), (item) => item.documents.map(restFileRef)),
}));
