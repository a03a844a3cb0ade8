// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Contact, Recipient } from './recipient.entities';

export type ContactMapper = Contact;
export type RecipientMapper = Recipient;
