// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { Template, TemplateItem } from './template.entities';

export type TemplateMapper = Template;
export type TemplateItemMapper = TemplateItem;
