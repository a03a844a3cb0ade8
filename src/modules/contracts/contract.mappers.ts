// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ContractRow } from './contract.entities';

export type ContractMapper = ContractRow;
