// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { RequestItem } from './item.entities';

// One entity holds every kind of item; the GraphQL types are its kinds.
export type RequestItemMapper = RequestItem;
export type UploadItemMapper = RequestItem;
export type ESignatureItemMapper = RequestItem;
export type QuestionItemMapper = RequestItem;
