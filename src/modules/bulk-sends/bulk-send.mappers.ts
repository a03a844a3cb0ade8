// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { BulkSendRow } from './bulk-send.entities';

export type BulkSendMapper = BulkSendRow;
