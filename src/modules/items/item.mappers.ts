// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { RequestItemRow } from './item.entities';

// One entity holds every kind of item; the GraphQL types are its kinds.
export type RequestItemMapper = RequestItemRow;
export type UploadItemMapper = RequestItemRow;
export type ESignatureItemMapper = RequestItemRow;
export type QuestionItemMapper = RequestItemRow;
