import type { RequestItemInput } from '../../generated/resolvers-types';
import type { FieldPath, InputCheck } from '../../kernel/validation/input-check';
import type { ItemForm } from '../forms/form.entities';
import type { FormRef } from '../forms/form.service';
import type { ItemType, QuestionType } from './item.enums';
import { MAX_ANSWER, MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME } from './item.limits';
import { checkUploadRules, type UploadRules } from './item.upload-rules';
import type { ServiceSettings } from '../../kernel/graphql/context';

/** An item as requests and templates both hold it, before it is stored. */
export type ItemDraft = {
  type: ItemType;
  name: string;
  description: string | null;
  required: boolean;
  questionType: QuestionType | null;
  answer: string | null;
  contractId: string | null;
  /** The form an UPLOAD item asks to fill in (a copy; see ItemForm). */
  form: ItemForm | null;
  /** What an UPLOAD item accepts. */
  uploadRules: UploadRules | null;
};

export function checkItemText(
  check: InputCheck,
  path: FieldPath,
  item: { name?: string | null; description?: string | null; answer?: string | null },
  nameRequired: boolean,
) {
  check
    .text([...path, 'name'], item.name, { max: MAX_ITEM_NAME, min: 1, required: nameRequired })
    .text([...path, 'description'], item.description, { max: MAX_ITEM_DESCRIPTION })
    .text([...path, 'answer'], item.answer, { max: MAX_ANSWER });
}

/** A stored item or template item, whose optional fields may be absent rather than null. */
type DraftSource = Readonly<
  Pick<ItemDraft, 'type' | 'name' | 'required'> & Partial<Omit<ItemDraft, 'type' | 'name' | 'required'>>
>;

/** The draft a stored item, or a template's item, gives a new item. */
export const draftOf = (item: DraftSource): ItemDraft => ({
  type: item.type,
  name: item.name,
  description: item.description ?? null,
  required: item.required,
  questionType: item.questionType ?? null,
  answer: item.answer ?? null,
  contractId: item.contractId ?? null,
  form: item.form ?? null,
  uploadRules: item.uploadRules ?? null,
});

/** The attachments an item input names, whichever kind it is. */
export const attachmentIdsOf = (input: RequestItemInput) =>
  (input.upload ?? input.eSignature ?? input.question)?.attachmentIds;

/** Where an item input names a form (only UPLOAD items take one), for `itemForms`. */
export const formRefOf = (path: FieldPath, input: RequestItemInput): FormRef => ({ path, form: input.upload?.form });

/**
 * Reads a `RequestItemInput` (one of upload, eSignature, question). The one-of rule is checked here
 * too: GraphQL enforces it on most executions, but every door must end in the same rules.
 */
export function draftFromInput(
  check: InputCheck,
  path: FieldPath,
  input: RequestItemInput,
  settings: Pick<ServiceSettings, 'maxUploadBytes' | 'maxFilesPerItem'>,
): ItemDraft | null {
  const given = (['upload', 'eSignature', 'question'] as const).filter((key) => input[key] != null);
  if (given.length !== 1) {
    check.add(path, 'An item is exactly one of upload, eSignature or question', 'INVALID');
    return null;
  }
  const kind = given[0];
  const { upload, eSignature, question } = input;
  const body = (upload ?? eSignature ?? question)!;
  checkItemText(check, path, { ...body, answer: question?.answer }, true);
  check.uuid([...path, 'contractId'], eSignature?.contractId);
  // API-DECISIONS: the recipient signs the contract, so an E_SIGNATURE item without one is refused.
  if (eSignature && eSignature.contractId == null)
    check.add([...path, 'contractId'], 'An E_SIGNATURE item needs a contract', 'REQUIRED');
  return {
    type: kind === 'upload' ? 'UPLOAD' : kind === 'eSignature' ? 'E_SIGNATURE' : 'QUESTION',
    name: body.name?.trim() ?? '',
    description: body.description ?? null,
    required: body.required ?? false,
    questionType: question ? (question.questionType ?? 'TEXT') : null,
    answer: question?.answer ?? null,
    contractId: eSignature?.contractId ?? null,
    // Set by the caller from `itemForms`, which reads the forms named.
    form: null,
    uploadRules: checkUploadRules(check, [...path, 'uploadRules'], upload?.uploadRules, settings),
  };
}
