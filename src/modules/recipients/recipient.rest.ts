import { Type } from '@sinclair/typebox';
import {
  ContactListDocument,
  ContactUpsertDocument,
  OrganizationContactListDocument,
  type RestContactFragment,
} from '../../kernel/graphql/__generated__/operations';
import { fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization } from '../../kernel/rest/mapping';
import { Query, listQuery, Nullable, Text, Uuid, withErrors, Body } from '../../kernel/rest/schemas';
import { LanguageSchema, languageFromRest, languageToRest } from '../requests/request.rest-shapes';


const tags = ['Contacts'];
const ListQuery = Query({ limit: listQuery('asc').properties.limit });

const ContactBody = Type.Object({
  id: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  language: Nullable(Type.String()),
  owner_id: Type.String(),
  team_id: Nullable(Type.String()),
  created_at: Type.String(),
});

const ContactUpsertBody = Body(
  { first_name: Nullable(Text(100)), last_name: Nullable(Text(100)), email: Nullable(Text(320)), phone: Nullable(Text(32)), language: Nullable(LanguageSchema) });

const restContact = (contact: RestContactFragment) => ({
  id: contact.id,
  first_name: contact.firstName,
  last_name: contact.lastName,
  email: contact.email,
  phone: contact.phone,
  language: contact.language ? languageToRest(contact.language) : null,
  owner_id: contact.owner.id,
  team_id: contact.team?.id ?? null,
  created_at: contact.createdAt,
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
      input: { firstName: body?.first_name, lastName: body?.last_name, email: body?.email, phone: body?.phone, language: body?.language ? languageFromRest(body.language) : body?.language },
    }),
    result: (data) => ({ body: restContact(fromPayload(data.contactUpsert, 'contact')) }),
  }),
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/contacts',
    summary: "List the organization's contacts (ADMIN: all; USER: its own)",
    tags,
    schema: { params: Type.Object({ org_id: Uuid() }), querystring: ListQuery, response: withErrors({ 200: Type.Array(ContactBody) }) },
    operation: OrganizationContactListDocument,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data) => {
      return { body: foundOrganization(data.node, 'contacts').contacts.nodes.map(restContact) };
    },
  }),
];
