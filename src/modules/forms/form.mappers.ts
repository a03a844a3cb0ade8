// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { FormRow, ItemForm } from './form.entities';

export type FormMapper = FormRow;
export type ItemFormMapper = ItemForm;
