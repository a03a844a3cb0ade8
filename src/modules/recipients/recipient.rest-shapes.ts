import { Type } from '@sinclair/typebox';
import type { RestContactFragment } from '../../kernel/graphql/__generated__/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { languageToRest } from '../requests/request.rest-shapes';

// The REST shape of contacts (recipients of requests are in request.rest-shapes.ts, inside requests).

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
