import { Type, type Static } from '@sinclair/typebox';
import type {
  Language as GraphQLLanguage,
  RequestCreateInput,
  RequestUpdateInput,
  RestRequestFragment,
} from '../../generated/operations';
import { inputFromBody } from '../../kernel/rest/mapping';
import { DateTime, Nullable, StringEnum, Text, Uuid, Body } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
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
import {
  CONNECTION_PROVIDERS,
  LANGUAGE_ALIASES,
  LANGUAGE_GRAPHQL_VALUES,
  LANGUAGES,
  REQUEST_STATES,
} from './request.enums';
import { requestRestParts } from './request.rest-parts';

// The spec's snake_case shapes of requests: the JSON Schemas REST rows validate and serialise with,
// and the mappings between them and the GraphQL documents. Their recipients, items and attachments
// are the keys those modules contribute (request.rest-parts.ts).

/** `en-US` and the rest, and their aliases (`en`, the spec's spelling of the default). */
export const LanguageSchema = StringEnum(
  [...LANGUAGES, ...Object.keys(LANGUAGE_ALIASES)],
  'a language code: en-US, es, ar, zh, fr, de, ht, he, id, it, ko, pt, pa, ru',
);

export const languageFromRest = (language: string): GraphQLLanguage =>
  (LANGUAGE_ALIASES[language] ?? language).replace('-', '_').toUpperCase() as GraphQLLanguage;
export const languageToRest = (language: string): string => LANGUAGE_GRAPHQL_VALUES[language] ?? language;

const CollaboratorInputBody = Type.Unsafe<string | { id: string; role?: 'ADMIN' | 'USER' | null }>({
  anyOf: [Uuid(), Body({ id: Uuid(), role: Nullable(StringEnum(['ADMIN', 'USER'] as const)) }, ['id'])],
  description: 'a user id, or an object {id, role}',
});

const ReminderScheduleInputBody = Body({ send_at: DateTime(), message: Nullable(Text(MAX_REMINDER_MESSAGE)) }, [
  'send_at',
]);

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
  reminders: Type.Integer({
    minimum: MIN_REMINDERS,
    maximum: MAX_REMINDERS,
    description: `days between reminders, ${MIN_REMINDERS} to ${MAX_REMINDERS}`,
  }),
  first_reminder_date: Nullable(DateTime()),
  reminder_schedule: Type.Array(ReminderScheduleInputBody, { maxItems: MAX_REMINDER_SCHEDULE }),
  collaborators: Type.Array(CollaboratorInputBody, { maxItems: MAX_COLLABORATORS }),
  cloud_storage_folder: Nullable(Text(MAX_CLOUD_STORAGE_FOLDER)),
  cloud_storage_provider: StringEnum(CONNECTION_PROVIDERS),
  require_complete_submission: Type.Boolean(),
  disable_submission_comments: Type.Boolean(),
};

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

// Where the parts' keys go among the request's own: the spec's order, which the JSON Schemas (hence
// the order of 422 entries) and every response body follow, whatever the order of the module list.
// In responses `escalations` goes beside `reminder_schedule` (spec 2.1), the others where they are spread.
const CREATE_BODY_PART_KEYS = ['recipients', 'items', 'attachments', 'attachment_ids', 'escalations'] as const;
const RESPONSE_PART_KEYS = ['items', 'attachments', 'recipients', 'escalations'] as const;
const UPDATE_BODY_PART_KEYS = ['escalations'] as const;

/** The parts' entries in the order of `keys`, each key given by exactly one part. */
function placed<K extends string, T>(what: string, fromParts: Record<string, T>[], keys: readonly K[]): Record<K, T> {
  const entries = fromParts.flatMap((fields) => Object.entries(fields));
  const byKey = new Map(entries);
  if (entries.length !== keys.length || keys.some((key) => !byKey.has(key))) {
    // Every key is the spec's, so a request without one is a bug, most likely a shape built before
    // src/modules/index.ts folded the modules.
    const given = entries.map(([key]) => key).join(', ') || 'nothing';
    throw new Error(
      `The request's ${what} places ${keys.join(', ')}; its parts give ${given} (are the modules folded?)`,
    );
  }
  return Object.fromEntries(keys.map((key) => [key, byKey.get(key)!])) as Record<K, T>;
}

function buildRequestRest() {
  const parts = requestRestParts.values();
  const { escalations: createEscalations, ...createParts } = placed(
    'create body',
    parts.map((part) => part.createBody.properties),
    CREATE_BODY_PART_KEYS,
  );
  const updates = parts.flatMap((part) => part.update ?? []);
  const { escalations: updateEscalations } = placed(
    'update body',
    updates.map((update) => update.body.properties),
    UPDATE_BODY_PART_KEYS,
  );
  // PATCH takes the fields the request keeps, and the parts'.
  const UpdateBody = Body({ ...writableFields, escalations: updateEscalations });
  const updateInputFromRest = (body: Record<string, unknown>) => ({
    ...writableInput(body),
    ...updates.reduce<Partial<RequestUpdateInput>>((input, update) => ({ ...input, ...update.input(body) }), {}),
  });
  const CreateBody = Body(
    {
      ...writableFields,
      // Creation takes nulls for "not given" everywhere.
      name: Nullable(writableFields.name),
      user_metadata: Nullable(Metadata),
      language: Nullable(LanguageSchema),
      reminders: Nullable(writableFields.reminders),
      reminder_schedule: Nullable(writableFields.reminder_schedule),
      escalations: createEscalations,
      collaborators: Nullable(writableFields.collaborators),
      cloud_storage_provider: Nullable(writableFields.cloud_storage_provider),
      require_complete_submission: Nullable(Type.Boolean()),
      disable_submission_comments: Nullable(Type.Boolean()),
      ...createParts,
      owner_id: Nullable(Uuid()),
      team_id: Nullable(Uuid()),
      template_id: Nullable(Uuid()),
      mfa_enabled: Nullable(Type.Boolean()),
      skip_initial_notification: Nullable(Type.Boolean()),
      draft: Nullable(Type.Boolean()),
      overwrite_template_items: Nullable(Type.Boolean()),
    },
    // A part's required keys are among its keys, which are all placed above.
    parts.flatMap((part) => part.createBody.required ?? []) as (typeof CREATE_BODY_PART_KEYS)[number][],
  );

  const createInputFromRest = (body: Static<typeof CreateBody>) => ({
    ...writableInput(body),
    ...parts.reduce<Partial<RequestCreateInput>>((input, part) => ({ ...input, ...part.input(body) }), {}),
    ownerId: body.owner_id,
    teamId: body.team_id,
    templateId: body.template_id,
    mfaEnabled: body.mfa_enabled,
    skipInitialNotification: body.skip_initial_notification,
    draft: body.draft,
    overwriteTemplateItems: body.overwrite_template_items,
  });

  const { schema: ResponseBody, map } = restShape((field: Field<RestRequestFragment>) => {
    const { escalations, ...responseParts } = placed(
      'response',
      parts.map((part) => part.response(field)),
      RESPONSE_PART_KEYS,
    );
    return {
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
      rejection: field(
        Nullable(
          Type.Object({ message: Type.String(), item_ids: Type.Array(Type.String()), rejected_at: Type.String() }),
        ),
        (r) =>
          r.rejection
            ? {
                message: r.rejection.message,
                item_ids: r.rejection.itemIds,
                rejected_at: String(r.rejection.rejectedAt),
              }
            : null,
      ),
      due_date: Nullable(Type.String()),
      expiration_date: Nullable(Type.String()),
      auto_close_at: Nullable(Type.String()),
      first_reminder_date: Nullable(Type.String()),
      personal_message: Nullable(Type.String()),
      notes: Nullable(Type.String()),
      user_metadata: field(Type.Record(Type.String(), Type.String()), (r) => r.userMetadata as Record<string, string>),
      language: field(Type.String(), (r) => languageToRest(r.language)),
      reminders: field(Type.String({ description: 'days between reminders, as a string' }), (r) => String(r.reminders)),
      reminder_schedule: field(Type.Array(ReminderScheduleEntry.schema), (r) =>
        r.reminderSchedule.map(ReminderScheduleEntry.map),
      ),
      escalations,
      cloud_storage_folder: Nullable(Type.String()),
      cloud_storage_provider: Type.String(),
      require_complete_submission: Type.Boolean(),
      disable_submission_comments: Type.Boolean(),
      mfa_enabled: Type.Boolean(),
      percent_complete: Type.Number(),
      ...responseParts,
      collaborators: field(Type.Array(Collaborator.schema), (r) => r.collaborators.map(Collaborator.map)),
      closed_at: Nullable(Type.String()),
      created_at: Type.String(),
      updated_at: Type.String(),
    };
  });

  return { CreateBody, createInputFromRest, UpdateBody, updateInputFromRest, ResponseBody, map };
}

let built: ReturnType<typeof buildRequestRest> | undefined;

/**
 * The create body, its GraphQL input and the response shape of requests. Built on first use, which
 * is after the modules are folded: the parts are contributed then, after every module has loaded.
 */
export const requestRest = () => (built ??= buildRequestRest());

/** A request in its REST shape. */
export const restRequest = (request: RestRequestFragment) => requestRest().map(request);
