// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Collaborator, Request } from './request.entities';

export type RequestMapper = Request;
export type CollaboratorMapper = Collaborator;
