// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { CollaboratorRow, RequestRow } from './request.entities';

export type RequestMapper = RequestRow;
export type CollaboratorMapper = CollaboratorRow;
