// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ContactRow, RecipientRow } from './recipient.entities';

export type ContactMapper = ContactRow;
export type RecipientMapper = RecipientRow;
