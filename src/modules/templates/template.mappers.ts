// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { TemplateRow, TemplateItemRow } from './template.entities';

export type TemplateMapper = TemplateRow;
export type TemplateItemMapper = TemplateItemRow;
