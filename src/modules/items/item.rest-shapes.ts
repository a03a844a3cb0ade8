import { Type } from '@sinclair/typebox';
import type { RestItemAFragment, RestItemBFragment } from '../../kernel/graphql/__generated__/operations';
import type { RequestItemInput } from '../../kernel/graphql/__generated__/resolvers-types';
import { Nullable, StringEnum, Text, Uuid, Body } from '../../kernel/rest/schemas';
import { ContractParts, restContractParts } from '../contracts/contract.rest-shapes';
import { QUESTION_TYPES } from '../requests/request.enums';
import { MAX_ANSWER, MAX_ATTACHMENT_IDS, MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME } from './item.limits';

// The spec's shapes of items: A (inside requests and templates, and item create/get/update) and B
// (the item list of the later revision), with the mapping of CreateRequestItem onto GraphQL.

/** Ids of attachments of the caller's library, copied onto a request or item at creation. */
export const AttachmentIds = Type.Array(Uuid('the id of an attachment of your library'), { maxItems: MAX_ATTACHMENT_IDS });

/** CreateRequestItem: the fields of shape A, a question part for QUESTION, contractId for E_SIGNATURE. */
export const ItemCreateBody = Body(
  {
    name: Text(MAX_ITEM_NAME, { minLength: 1 }),
    type: StringEnum(['UPLOAD', 'STANDARD', 'E_SIGNATURE', 'QUESTION'] as const, 'UPLOAD (or STANDARD), E_SIGNATURE or QUESTION'),
    description: Nullable(Text(MAX_ITEM_DESCRIPTION)),
    required: Nullable(Type.Boolean()),
    answer: Nullable(Text(MAX_ANSWER)),
    question: Nullable(
      Body({ type: Nullable(StringEnum(QUESTION_TYPES)), answer: Nullable(Text(MAX_ANSWER)) }),
    ),
    contractId: Nullable(Uuid()),
    contract_id: Nullable(Uuid()),
    attachments: Nullable(AttachmentIds),
    attachment_ids: Nullable(AttachmentIds),
  }, ['name', 'type']);
type ItemCreateBody = (typeof ItemCreateBody)['static'];

export function itemInputFromRest(body: ItemCreateBody): RequestItemInput {
  const base = { name: body.name, description: body.description, required: body.required, attachmentIds: body.attachments ?? body.attachment_ids };
  switch (body.type) {
    case 'E_SIGNATURE':
      return { eSignature: { ...base, contractId: body.contractId ?? body.contract_id } };
    case 'QUESTION':
      return { question: { ...base, questionType: body.question?.type, answer: body.question?.answer ?? body.answer } };
    default:
      return { upload: base };
  }
}

const ItemTypeA = StringEnum(['UPLOAD', 'E_SIGNATURE', 'QUESTION'] as const);

export const ItemBodyA = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: ItemTypeA,
  description: Nullable(Type.String()),
  required: Type.Boolean(),
  answer: Nullable(Type.String()),
  verified: Type.Boolean(),
  is_na: Type.Boolean(),
});

const Assignee = Type.Object({
  email: Nullable(Type.String()),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  phone: Nullable(Type.String()),
});
/** An attachment or document inside another record: `{id, name, mime}`. */
export const FileRef = Type.Object({ id: Type.String(), name: Type.String(), mime: Type.String() });
export const restFileRef = (file: { id: string; name: string; mimeType: string }) => ({ id: file.id, name: file.name, mime: file.mimeType });

export const ItemBodyB = Type.Object({
  id: Type.String(),
  type: StringEnum(['STANDARD', 'E_SIGNATURE', 'QUESTION'] as const),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: StringEnum(['INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED'] as const),
  required: Type.Boolean(),
  questions: Type.Optional(Type.Object({ id: Type.String(), questionText: Type.String(), questionAnswer: Nullable(Type.String()) })),
  eSignature: Type.Optional(Type.Object({ contractId: Type.String(), ...ContractParts })),
  attachments: Type.Array(FileRef),
  assignedTo: Assignee,
  documents: Type.Array(FileRef),
});

export const restItemA = (item: RestItemAFragment) => ({
  id: item.id,
  name: item.name,
  type: item.kind,
  description: item.description,
  required: item.required,
  answer: 'answer' in item ? item.answer : null,
  verified: item.verified,
  is_na: item.isNa,
});

export const restItemB = (item: RestItemBFragment) => ({
  id: item.id,
  type: item.kind === 'UPLOAD' ? 'STANDARD' : item.kind,
  name: item.name,
  description: item.description,
  status: item.status,
  required: item.required,
  ...(item.kind === 'QUESTION' ? { questions: { id: item.id, questionText: item.name, questionAnswer: 'answer' in item ? item.answer : null } } : {}),
  ...('contract' in item && item.contract ? { eSignature: { contractId: item.contract.id, ...restContractParts(item.contract) } } : {}),
  attachments: item.attachments.map(restFileRef),
  assignedTo: item.assignedTo ?? { email: null, firstName: null, lastName: null, phone: null },
  documents: item.documents.map(restFileRef),
});
