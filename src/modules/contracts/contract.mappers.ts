// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Contract } from './contract.entities';

export type ContractMapper = Contract;
