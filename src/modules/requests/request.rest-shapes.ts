import { Type } from '@sinclair/typebox';
import type { Language as GraphQLLanguage, RestRecipientFragment, RestRequestFragment } from '../../kernel/graphql/__generated__/operations';
import { inputFromBody } from '../../kernel/rest/mapping';
import { DateTime, Nullable, StringEnum, Text, Uuid, Body } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { AttachmentIds, FileRef, ItemBodyA, ItemCreateBody, itemInputFromRest, restFileRef, restItemA } from '../items/item.rest-shapes';
import { MAX_EMAIL, MAX_PERSON_NAME, MAX_PHONE } from '../../kernel/limits';
import { MAX_ITEMS } from './request.limits';
import { MAX_QUESTION, MAX_RECIPIENTS } from '../recipients/recipient.limits';
import {
  MAX_CLOUD_STORAGE_FOLDER,
  MAX_COLLABORATORS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
  MAX_NOTES,
  MAX_PERSONAL_MESSAGE,
  MAX_REMINDER_MESSAGE,
  MAX_REMINDER_SCHEDULE,
  MAX_REMINDERS,
  MAX_REQUEST_NAME,
  MIN_REMINDERS,
} from './request.limits';
import { AUTH_METHODS, SEND_METHODS } from '../recipients/recipient.enums';
import { CONNECTION_PROVIDERS, LANGUAGE_GRAPHQL_VALUES, LANGUAGES, REQUEST_STATES } from './request.enums';

// The spec's snake_case shapes of requests and recipients: the JSON Schemas REST rows
// validate and serialise with, and the mappings between them and the GraphQL documents.

/** `en-US` and the rest; `en` is the spec's spelling of the default. */
export const LanguageSchema = StringEnum([...LANGUAGES, 'en'], 'a language code: en-US, es, ar, zh, fr, de, ht, he, id, it, ko, pt, pa, ru');

export const languageFromRest = (language: string): GraphQLLanguage => (language === 'en' ? 'EN_US' : (language.replace('-', '_').toUpperCase() as GraphQLLanguage));
export const languageToRest = (language: string): string => LANGUAGE_GRAPHQL_VALUES[language] ?? language;

const languageOrNull = (language: string | null | undefined) => (language == null ? language : languageFromRest(language));

// ---- recipients ----------------------------------------------------------------------------------

const AuthMethodSchema = StringEnum(AUTH_METHODS, 'UNSET, EMAIL, SMS, SECURITY_QUESTION or NONE');

export const RecipientCreateBody = Body(
  {
    id: Nullable(Uuid('the id of an existing contact')),
    first_name: Nullable(Text(MAX_PERSON_NAME)),
    last_name: Nullable(Text(MAX_PERSON_NAME)),
    email: Nullable(Text(MAX_EMAIL)),
    phone: Nullable(Text(MAX_PHONE)),
    language: Nullable(LanguageSchema),
    auth_method: Nullable(
      Type.Unsafe<string | { type: string; question_text?: string | null; question_answer?: string | null }>({
        anyOf: [
          AuthMethodSchema,
          Body(
            { type: AuthMethodSchema, question_text: Nullable(Text(MAX_QUESTION)), question_answer: Nullable(Text(MAX_QUESTION)) }, ['type']),
        ],
        description: 'an auth method, or an object {type, question_text, question_answer}',
      }),
    ),
    send_method: Nullable(StringEnum(SEND_METHODS)),
    question_text: Nullable(Text(MAX_QUESTION)),
    question_answer: Nullable(Text(MAX_QUESTION)),
  });
type RecipientCreateBody = (typeof RecipientCreateBody)['static'];

export function recipientInputFromRest(body: RecipientCreateBody) {
  const auth = typeof body.auth_method === 'object' && body.auth_method !== null ? body.auth_method : null;
  return {
    id: body.id,
    firstName: body.first_name,
    lastName: body.last_name,
    email: body.email,
    phone: body.phone,
    language: languageOrNull(body.language),
    authMethod: (auth ? auth.type : body.auth_method) as never,
    sendMethod: body.send_method as never,
    questionText: auth?.question_text ?? body.question_text,
    questionAnswer: auth?.question_answer ?? body.question_answer,
  };
}

const RecipientPerson = restShape((field: Field<RestRecipientFragment>) => ({
  id: field(Type.String(), (r) => r.contact.id),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  owner_id: field(Type.String(), (r) => r.contact.owner.id),
  team_id: field(Nullable(Type.String()), (r) => r.contact.team?.id ?? null),
  language: field(Nullable(Type.String()), (r) => (r.language ? languageToRest(r.language) : null)),
}));

const Recipient = restShape((field: Field<RestRecipientFragment>) => ({
  request_link: Type.String(),
  mfa_link: Nullable(Type.String()),
  auth: AuthMethodSchema,
  password: Type.String(),
  recipient: field(RecipientPerson.schema, RecipientPerson.map),
}));

// ---- requests ------------------------------------------------------------------------------------

const CollaboratorInputBody = Type.Unsafe<string | { id: string; role?: 'ADMIN' | 'USER' | null }>({
  anyOf: [Uuid(), Body({ id: Uuid(), role: Nullable(StringEnum(['ADMIN', 'USER'] as const)) }, ['id'])],
  description: 'a user id, or an object {id, role}',
});

const ReminderScheduleInputBody = Body({ send_at: DateTime(), message: Nullable(Text(MAX_REMINDER_MESSAGE)) }, ['send_at']);

const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: Text(MAX_METADATA_VALUE),
  maxProperties: MAX_METADATA_KEYS,
  description: `up to ${MAX_METADATA_KEYS} string values`,
});

/** The fields PATCH may change (API-DECISIONS, Request fields); creation takes them too. */
const writableFields = {
  name: Text(MAX_REQUEST_NAME, { minLength: 1 }),
  due_date: Nullable(DateTime()),
  expiration_date: Nullable(DateTime()),
  auto_close_at: Nullable(DateTime()),
  personal_message: Nullable(Text(MAX_PERSONAL_MESSAGE)),
  notes: Nullable(Text(MAX_NOTES)),
  user_metadata: Metadata,
  language: LanguageSchema,
  reminders: Type.Integer({ minimum: MIN_REMINDERS, maximum: MAX_REMINDERS, description: `days between reminders, ${MIN_REMINDERS} to ${MAX_REMINDERS}` }),
  first_reminder_date: Nullable(DateTime()),
  reminder_schedule: Type.Array(ReminderScheduleInputBody, { maxItems: MAX_REMINDER_SCHEDULE }),
  collaborators: Type.Array(CollaboratorInputBody, { maxItems: MAX_COLLABORATORS }),
  cloud_storage_folder: Nullable(Text(MAX_CLOUD_STORAGE_FOLDER)),
  cloud_storage_provider: StringEnum(CONNECTION_PROVIDERS),
  require_complete_submission: Type.Boolean(),
  disable_submission_comments: Type.Boolean(),
};

export const RequestCreateBody = Body(
  {
    ...writableFields,
    // Creation takes nulls for "not given" everywhere.
    name: Nullable(writableFields.name),
    user_metadata: Nullable(Metadata),
    language: Nullable(LanguageSchema),
    reminders: Nullable(writableFields.reminders),
    reminder_schedule: Nullable(writableFields.reminder_schedule),
    collaborators: Nullable(writableFields.collaborators),
    cloud_storage_provider: Nullable(writableFields.cloud_storage_provider),
    require_complete_submission: Nullable(Type.Boolean()),
    disable_submission_comments: Nullable(Type.Boolean()),
    recipients: Type.Array(RecipientCreateBody, { minItems: 1, maxItems: MAX_RECIPIENTS }),
    items: Nullable(Type.Array(ItemCreateBody, { maxItems: MAX_ITEMS })),
    attachments: Nullable(AttachmentIds),
    attachment_ids: Nullable(AttachmentIds),
    owner_id: Nullable(Uuid()),
    team_id: Nullable(Uuid()),
    template_id: Nullable(Uuid()),
    mfa_enabled: Nullable(Type.Boolean()),
    skip_initial_notification: Nullable(Type.Boolean()),
    overwrite_template_items: Nullable(Type.Boolean()),
  }, ['recipients']);

export const RequestUpdateBody = Body(writableFields);

const collaboratorsFromRest = (list: (typeof writableFields.collaborators)['static'] | null | undefined) =>
  list?.map((c) => (typeof c === 'string' ? { id: c } : { id: c.id, role: c.role }));

const scheduleFromRest = (list: (typeof writableFields.reminder_schedule)['static'] | null | undefined) =>
  list?.map((entry) => ({ sendAt: entry.send_at, message: entry.message }));

/** The GraphQL input for the fields both bodies share; only keys the client sent are set. */
const writableInput = (body: Record<string, unknown>) =>
  inputFromBody(body, Object.keys(writableFields), {
    language: languageFromRest,
    reminder_schedule: scheduleFromRest,
    collaborators: collaboratorsFromRest,
  });

export const requestUpdateInputFromRest = writableInput;

export function requestCreateInputFromRest(body: (typeof RequestCreateBody)['static']) {
  return {
    ...writableInput(body),
    recipients: body.recipients.map(recipientInputFromRest),
    items: body.items?.map(itemInputFromRest) ?? body.items,
    attachmentIds: body.attachments ?? body.attachment_ids,
    ownerId: body.owner_id,
    teamId: body.team_id,
    templateId: body.template_id,
    mfaEnabled: body.mfa_enabled,
    skipInitialNotification: body.skip_initial_notification,
    overwriteTemplateItems: body.overwrite_template_items,
  };
}

const RequestState = StringEnum(REQUEST_STATES);

const Collaborator = restShape((field: Field<RestRequestFragment['collaborators'][number]>) => ({
  id: Type.String(),
  role: Type.String(),
  first_name: field(Nullable(Type.String()), (c) => c.user.firstName),
  last_name: field(Nullable(Type.String()), (c) => c.user.lastName),
  email: field(Type.String(), (c) => c.user.email),
}));

const ReminderScheduleEntry = restShape((_field: Field<RestRequestFragment['reminderSchedule'][number]>) => ({
  send_at: Type.String(),
  message: Nullable(Type.String()),
}));

export const { schema: RequestBody, map: restRequest } = restShape((field: Field<RestRequestFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  owner_id: field(Type.String(), (r) => r.owner.id),
  team_id: field(Nullable(Type.String()), (r) => r.team?.id ?? null),
  template_id: field(Nullable(Type.String()), (r) => r.template?.id ?? null),
  status: field(RequestState, (r) => r.state),
  state: RequestState,
  owner_opened: Type.Boolean(),
  user_opened: Type.Boolean(),
  verified: Type.Boolean(),
  // Deleted requests are not found, so every request a client sees says false.
  deleted: field(Type.Boolean(), () => false),
  rejected: Type.Boolean(),
  due_date: Nullable(Type.String()),
  expiration_date: Nullable(Type.String()),
  auto_close_at: Nullable(Type.String()),
  first_reminder_date: Nullable(Type.String()),
  personal_message: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  user_metadata: field(Type.Record(Type.String(), Type.String()), (r) => r.userMetadata as Record<string, string>),
  language: field(Type.String(), (r) => languageToRest(r.language)),
  reminders: field(Type.String({ description: 'days between reminders, as a string' }), (r) => String(r.reminders)),
  reminder_schedule: field(Type.Array(ReminderScheduleEntry.schema), (r) => r.reminderSchedule.map(ReminderScheduleEntry.map)),
  cloud_storage_folder: Nullable(Type.String()),
  cloud_storage_provider: Type.String(),
  require_complete_submission: Type.Boolean(),
  disable_submission_comments: Type.Boolean(),
  mfa_enabled: Type.Boolean(),
  percent_complete: Type.Number(),
  items: field(Type.Array(ItemBodyA), (r) => r.items.map(restItemA)),
  attachments: field(Type.Array(FileRef), (r) => r.attachments.map(restFileRef)),
  recipients: field(Type.Array(Recipient.schema), (r) => r.recipients.map(Recipient.map)),
  collaborators: field(Type.Array(Collaborator.schema), (r) => r.collaborators.map(Collaborator.map)),
  closed_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
}));
