// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { AttachmentRow } from './attachment.entities';

export type AttachmentMapper = AttachmentRow;
