// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ApiKey, Organization, Team, User } from './identity.entities';

export type OrganizationMapper = Organization;
export type TeamMapper = Team;
export type UserMapper = User;
export type ApiKeyMapper = ApiKey;
