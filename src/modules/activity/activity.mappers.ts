// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ActivityRow } from './activity.entities';

export type ActivityMapper = ActivityRow;
/** The actor is read from its entry's columns. */
export type ActivityActorMapper = ActivityRow;
