// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { DocumentRow } from './document.entities';

export type DocumentMapper = DocumentRow;
