// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ApiKeyRow, OrganizationRow, TeamRow, UserRow } from './identity.entities';

export type OrganizationMapper = OrganizationRow;
export type TeamMapper = TeamRow;
export type UserMapper = UserRow;
export type ApiKeyMapper = ApiKeyRow;
