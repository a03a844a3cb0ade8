import { Type } from '@sinclair/typebox';
import {
  ContactListDocument,
  ContactUpsertDocument,
  OrganizationContactListDocument,
  RecipientLinkRegenerateDocument,
} from '../../generated/operations';
import { fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization } from '../../kernel/rest/mapping';
import { Query, listQuery, Nullable, Text, Uuid, withErrors, Body } from '../../kernel/rest/schemas';
import { MAX_EMAIL, MAX_PERSON_NAME, MAX_PHONE } from '../../kernel/limits';
import { LanguageSchema, languageFromRest } from '../requests/request.rest-shapes';
import { ContactBody, Recipient, restContact } from './recipient.rest-shapes';

const tags = ['Contacts'];
const ListQuery = Query({ limit: listQuery('asc').properties.limit });

const ContactUpsertBody = Body({
  first_name: Nullable(Text(MAX_PERSON_NAME)),
  last_name: Nullable(Text(MAX_PERSON_NAME)),
  email: Nullable(Text(MAX_EMAIL)),
  phone: Nullable(Text(MAX_PHONE)),
  language: Nullable(LanguageSchema),
});

export const recipientRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/contacts',
    summary: "List the caller's contacts, oldest first",
    tags,
    schema: { querystring: ListQuery, response: withErrors({ 200: Type.Array(ContactBody) }, [422]) },
    operation: ContactListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.contacts.nodes.map(restContact) }),
  }),
  restRow({
    method: 'POST',
    url: '/contacts',
    summary: 'Create a contact, or update the one with the same email and phone',
    tags,
    schema: { body: ContactUpsertBody, response: withErrors({ 200: ContactBody }, [422]) },
    operation: ContactUpsertDocument,
    variables: ({ body }) => ({
      input: {
        firstName: body?.first_name,
        lastName: body?.last_name,
        email: body?.email,
        phone: body?.phone,
        language: body?.language ? languageFromRest(body.language) : body?.language,
      },
    }),
    result: (data) => ({ body: restContact(fromPayload(data.contactUpsert, 'contact')) }),
  }),
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/contacts',
    summary: "List the organization's contacts (ADMIN: all; USER: its own)",
    tags,
    schema: {
      params: Type.Object({ org_id: Uuid() }),
      querystring: ListQuery,
      response: withErrors({ 200: Type.Array(ContactBody) }),
    },
    operation: OrganizationContactListDocument,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data) => {
      return { body: foundOrganization(data.node, 'contacts').contacts.nodes.map(restContact) };
    },
  }),
  restRow({
    method: 'POST',
    url: '/requests/:request_id/recipients/:recipient_id/link',
    summary: "Regenerate a recipient's link (the old one stops working) and invite it with the new one",
    tags: ['Requests'],
    schema: {
      params: Type.Object({ request_id: Uuid(), recipient_id: Uuid() }),
      response: withErrors({ 200: Recipient.schema }),
    },
    operation: RecipientLinkRegenerateDocument,
    variables: ({ params }) => ({ requestId: params.request_id, id: params.recipient_id }),
    result: (data) => ({ body: Recipient.map(fromPayload(data.recipientLinkRegenerate, 'recipient')) }),
  }),
];
