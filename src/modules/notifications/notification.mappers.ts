// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { NotificationRow } from './notification.entities';

export type NotificationMapper = NotificationRow;
