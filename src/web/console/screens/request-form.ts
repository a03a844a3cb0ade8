import type {
  AuthMethod,
  TemplateCreateInput,
  TemplateItemInput,
  Language,
  RecipientInput,
  RequestCreateInput,
  RequestItemInput,
  RequestItemKind,
} from '../../../generated/console/graphql';
import { instant, text, whole } from '../forms';

// The new-request form's state (strings, as its fields hold them) and the `requestCreate` input it
// becomes; no browser here (test/unit/console-request-form.test.ts).

/** An item of the form: a FORM is an UPLOAD item whose recipient fills in a form. */
export type ItemKind = RequestItemKind | 'FORM';

export type ItemDraft = {
  key: string;
  kind: ItemKind;
  name: string;
  description: string;
  required: boolean;
  contractId: string;
  formId: string;
  allowFileUpload: boolean;
};

export type RecipientDraft = {
  key: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  authMethod: AuthMethod;
  questionText: string;
  questionAnswer: string;
};

export type RequestDraft = {
  templateId: string;
  name: string;
  language: Language | '';
  items: ItemDraft[];
  recipients: RecipientDraft[];
  dueDate: string;
  expirationDate: string;
  reminders: string;
  personalMessage: string;
  notes: string;
};

let made = 0;
/** A key for a list entry of the form (React's, and the field ids' own). */
export const newKey = (): string => `k${++made}`;

export const newItem = (kind: ItemKind): ItemDraft => ({
  key: newKey(),
  kind,
  name: '',
  description: '',
  required: true,
  contractId: '',
  formId: '',
  allowFileUpload: false,
});

export const newRecipient = (): RecipientDraft => ({
  key: newKey(),
  firstName: '',
  lastName: '',
  email: '',
  phone: '',
  authMethod: 'UNSET',
  questionText: '',
  questionAnswer: '',
});

export const emptyDraft = (): RequestDraft => ({
  templateId: '',
  name: '',
  language: '',
  items: [],
  recipients: [newRecipient()],
  dueDate: '',
  expirationDate: '',
  reminders: '',
  personalMessage: '',
  notes: '',
});

export function itemInput(item: ItemDraft): RequestItemInput {
  const common = { name: item.name.trim(), description: text(item.description), required: item.required };
  switch (item.kind) {
    case 'QUESTION':
      return { question: common };
    case 'E_SIGNATURE':
      return { eSignature: { ...common, contractId: item.contractId || undefined } };
    case 'FORM':
      return {
        upload: { ...common, form: { id: item.formId, allowFileUpload: item.allowFileUpload } },
      };
    default:
      return { upload: common };
  }
}

export function recipientInput(recipient: RecipientDraft): RecipientInput {
  const question = recipient.authMethod === 'SECURITY_QUESTION';
  return {
    firstName: text(recipient.firstName),
    lastName: text(recipient.lastName),
    email: text(recipient.email),
    phone: text(recipient.phone),
    authMethod: recipient.authMethod,
    ...(question && { questionText: text(recipient.questionText), questionAnswer: text(recipient.questionAnswer) }),
  };
}

/** The `requestCreate` input: sent now, or kept as a draft. Empty fields are left out (the defaults apply). */
export function createInput(draft: RequestDraft, send: boolean): RequestCreateInput {
  return {
    name: text(draft.name),
    templateId: draft.templateId || undefined,
    language: draft.language || undefined,
    // Given with a template, the items replace the template's (the form starts with a copy of them).
    items: draft.items.map(itemInput),
    recipients: draft.recipients.map(recipientInput),
    dueDate: instant(draft.dueDate),
    expirationDate: instant(draft.expirationDate),
    reminders: whole(draft.reminders),
    personalMessage: text(draft.personalMessage),
    notes: text(draft.notes),
    draft: !send,
  };
}

/** What a template gives the form to start from. */
export type TemplateStart = {
  id: string;
  name: string;
  defaultTitle: string | null;
  personalMessage: string | null;
  reminders: number;
  dueDateInterval: number | null;
  language: Language;
  items: ReadonlyArray<{
    kind: RequestItemKind;
    name: string;
    description: string | null;
    required: boolean;
    form: { id: string; allowFileUpload: boolean } | null;
  }>;
};

/** The form filled from a template, keeping the recipients already written; `now` for its due date. */
export function fromTemplate(draft: RequestDraft, template: TemplateStart, now: Date, local: (iso: string) => string) {
  return {
    ...draft,
    templateId: template.id,
    name: template.defaultTitle ?? template.name,
    language: template.language,
    personalMessage: template.personalMessage ?? '',
    reminders: String(template.reminders),
    dueDate:
      template.dueDateInterval != null
        ? local(new Date(now.getTime() + template.dueDateInterval * 86_400_000).toISOString())
        : draft.dueDate,
    items: template.items.map(itemFromTemplate),
  };
}

/** A template's item, as the form writes it. */
export const itemFromTemplate = (item: TemplateStart['items'][number]): ItemDraft => ({
  ...newItem(item.form ? 'FORM' : item.kind),
  name: item.name,
  description: item.description ?? '',
  required: item.required,
  formId: item.form?.id ?? '',
  allowFileUpload: item.form?.allowFileUpload ?? false,
});

/** A template's item input (a template's e-signature item names no contract: each request's does). */
export function templateItemInput(item: ItemDraft): TemplateItemInput {
  const common = { name: item.name.trim(), description: text(item.description), required: item.required };
  if (item.kind === 'FORM')
    return { ...common, kind: 'UPLOAD', form: { id: item.formId, allowFileUpload: item.allowFileUpload } };
  return { ...common, kind: item.kind };
}

export type TemplateDraft = {
  name: string;
  defaultTitle: string;
  personalMessage: string;
  reminders: string;
  dueDateInterval: string;
  language: Language | '';
  items: ItemDraft[];
};

export const emptyTemplate = (): TemplateDraft => ({
  name: '',
  defaultTitle: '',
  personalMessage: '',
  reminders: '',
  dueDateInterval: '',
  language: '',
  items: [],
});

/** The template as the form writes it. */
export const templateDraft = (template: Omit<TemplateStart, 'id'>): TemplateDraft => ({
  name: template.name,
  defaultTitle: template.defaultTitle ?? '',
  personalMessage: template.personalMessage ?? '',
  reminders: String(template.reminders),
  dueDateInterval: template.dueDateInterval == null ? '' : String(template.dueDateInterval),
  language: template.language,
  items: template.items.map(itemFromTemplate),
});

/**
 * The `templateCreate` (and `templateUpdate`) input. A field left empty is sent as null, so that an
 * update clears it; the item list is sent whole and replaces the template's.
 */
export function templateInput(draft: TemplateDraft): TemplateCreateInput {
  return {
    name: draft.name.trim(),
    defaultTitle: text(draft.defaultTitle) ?? null,
    personalMessage: text(draft.personalMessage) ?? null,
    reminders: whole(draft.reminders),
    dueDateInterval: whole(draft.dueDateInterval) ?? null,
    language: draft.language || undefined,
    items: draft.items.map(templateItemInput),
  };
}
