import { Type } from '@sinclair/typebox';
import type { RestContactFragment, RestRecipientFragment } from '../../generated/operations';
import { MAX_EMAIL, MAX_PERSON_NAME, MAX_PHONE } from '../../kernel/limits';
import { Body, Nullable, StringEnum, Text, Uuid } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import type { RequestRestPart } from '../requests/request.rest-parts';
import { LanguageSchema, languageFromRest, languageToRest } from '../requests/request.rest-shapes';
import { AUTH_METHODS, SEND_METHODS } from './recipient.enums';
import { MAX_QUESTION, MAX_RECIPIENTS } from './recipient.limits';

// The REST shapes of contacts and of a request's recipients (the `recipients` of its create body and
// of its response).

export const { schema: ContactBody, map: restContact } = restShape((field: Field<RestContactFragment>) => ({
  id: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  language: field(Nullable(Type.String()), (contact) => (contact.language ? languageToRest(contact.language) : null)),
  owner_id: field(Type.String(), (contact) => contact.owner.id),
  team_id: field(Nullable(Type.String()), (contact) => contact.team?.id ?? null),
  created_at: Type.String(),
}));

const languageOrNull = (language: string | null | undefined) =>
  language == null ? language : languageFromRest(language);

const AuthMethodSchema = StringEnum(AUTH_METHODS, 'UNSET, EMAIL, SMS, SECURITY_QUESTION or NONE');

const RecipientCreateBody = Body({
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
          {
            type: AuthMethodSchema,
            question_text: Nullable(Text(MAX_QUESTION)),
            question_answer: Nullable(Text(MAX_QUESTION)),
          },
          ['type'],
        ),
      ],
      description: 'an auth method, or an object {type, question_text, question_answer}',
    }),
  ),
  send_method: Nullable(StringEnum(SEND_METHODS)),
  question_text: Nullable(Text(MAX_QUESTION)),
  question_answer: Nullable(Text(MAX_QUESTION)),
});
type RecipientCreateBody = (typeof RecipientCreateBody)['static'];

function recipientInputFromRest(body: RecipientCreateBody) {
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

export const Recipient = restShape((field: Field<RestRecipientFragment>) => ({
  request_link: Type.String(),
  mfa_link: Nullable(Type.String()),
  auth: AuthMethodSchema,
  password: Type.String(),
  recipient: field(RecipientPerson.schema, RecipientPerson.map),
}));

const RequestRecipientsBody = Body(
  { recipients: Type.Array(RecipientCreateBody, { minItems: 1, maxItems: MAX_RECIPIENTS }) },
  ['recipients'],
);

export const requestRecipientsRestPart: RequestRestPart<typeof RequestRecipientsBody> = {
  createBody: RequestRecipientsBody,
  input: (body) => ({ recipients: body.recipients.map(recipientInputFromRest) }),
  response: (field) => ({ recipients: field(Type.Array(Recipient.schema), (r) => r.recipients.map(Recipient.map)) }),
};
