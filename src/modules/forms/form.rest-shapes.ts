import { Type } from '@sinclair/typebox';
import type { RestFormFieldFragment, RestFormFragment, RestItemFormFragment } from '../../generated/operations';
import type { ItemFormInput } from '../../generated/resolvers-types';
import { Body, Nullable, Text, Uuid } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { MAX_FORM_FIELDS, MAX_FORM_NAME, MAX_FORM_VALUE } from './form.limits';

// The REST shapes of forms: a form's `fields` is a map of field name to `{default_value, read_only}`
// (API-DECISIONS "Bodies"), in bodies and answers; the form part of items has the same map.

const FieldIn = Body({ default_value: Nullable(Text(MAX_FORM_VALUE)), read_only: Nullable(Type.Boolean()) });
type FieldMapIn = Record<string, { default_value?: string | null; read_only?: boolean | null }>;
const FieldMap = (description: string, minProperties = 0) =>
  Type.Unsafe<FieldMapIn>({
    type: 'object',
    additionalProperties: FieldIn,
    minProperties,
    maxProperties: MAX_FORM_FIELDS,
    description,
  });

/** A field map as GraphQL's inputs take it (camelCase members; keys as sent). */
const fieldMapFromRest = (fields: FieldMapIn) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, f]) => [name, { defaultValue: f.default_value, readOnly: f.read_only }]),
  );

const FieldOut = Type.Object({ default_value: Nullable(Type.String()), read_only: Type.Boolean() });
const restFieldMap = (fields: readonly RestFormFieldFragment[]) =>
  Object.fromEntries(fields.map((f) => [f.name, { default_value: f.defaultValue ?? null, read_only: f.readOnly }]));

export const FormCreateBody = Body(
  {
    name: Text(MAX_FORM_NAME, { minLength: 1 }),
    fields: FieldMap('per field name, in order: {default_value, read_only}', 1),
    allow_file_upload: Nullable(Type.Boolean()),
  },
  ['name', 'fields'],
);

export const formInputFromRest = (body: (typeof FormCreateBody)['static']) => ({
  name: body.name,
  fields: fieldMapFromRest(body.fields),
  allowFileUpload: body.allow_file_upload,
});

export const { schema: FormBody, map: restForm } = restShape((field: Field<RestFormFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  fields: field(Type.Record(Type.String(), FieldOut), (form) => restFieldMap(form.fields)),
  allow_file_upload: Type.Boolean(),
  owner_id: field(Type.String(), (form) => form.owner.id),
  created_at: Type.String(),
  updated_at: Type.String(),
}));

/** The `form` of an item input: a form of the organization, and this item's changes to it. */
export const ItemFormBody = Body(
  {
    id: Uuid('the id of a form of your organization'),
    allow_file_upload: Nullable(Type.Boolean()),
    fields: Nullable(FieldMap("this item's changes to the form's fields: {default_value, read_only} per field name")),
  },
  ['id'],
);

export const itemFormInputFromRest = (
  form: (typeof ItemFormBody)['static'] | null | undefined,
): ItemFormInput | null | undefined =>
  form && {
    id: form.id,
    allowFileUpload: form.allow_file_upload,
    fields: form.fields && fieldMapFromRest(form.fields),
  };

/** The `form` of an item in shape A (templates and requests): its copy of the form. */
export const { schema: ItemFormOut, map: restItemForm } = restShape((field: Field<RestItemFormFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  allow_file_upload: Type.Boolean(),
  fields: field(Type.Record(Type.String(), FieldOut), (form) => restFieldMap(form.fields)),
}));
