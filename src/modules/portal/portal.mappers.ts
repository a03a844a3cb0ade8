// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type {
  RecipientDocumentView,
  RecipientFileView,
  RecipientItemView,
  RecipientRequestView,
} from './portal.service';

export type RecipientRequestMapper = RecipientRequestView;
export type RecipientItemMapper = RecipientItemView;
export type RecipientDocumentMapper = RecipientDocumentView;
export type RecipientFileMapper = RecipientFileView;
