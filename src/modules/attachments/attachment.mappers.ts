// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Attachment } from './attachment.entities';

export type AttachmentMapper = Attachment;
