import { Type } from '@sinclair/typebox';
import type { RestTemplateFragment } from '../../generated/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { ItemFormOut, restItemForm } from '../forms/form.rest-shapes';
import { restUploadRules, UploadRulesOut } from '../items/item.upload-rules.rest';
import { languageToRest } from '../requests/request.rest-shapes';

// The spec's shape of templates (2.6), items in shape A with `received` and `form`.

const TemplateItem = restShape((field: Field<RestTemplateFragment['items'][number]>) => ({
  id: Type.String(),
  name: Type.String(),
  type: field(Type.String(), (item) => item.kind),
  description: Nullable(Type.String()),
  required: Type.Boolean(),
  answer: Nullable(Type.String()),
  // A template item is never verified nor marked not applicable.
  verified: field(Type.Boolean(), () => false),
  is_na: field(Type.Boolean(), () => false),
  received: Type.Boolean(),
  form: field(Nullable(ItemFormOut), (item) => (item.form ? restItemForm(item.form) : null)),
  upload_rules: field(Nullable(UploadRulesOut), (item) =>
    item.uploadRules ? restUploadRules(item.uploadRules) : null,
  ),
}));

export const { schema: TemplateBody, map: restTemplate } = restShape((field: Field<RestTemplateFragment>) => ({
  id: Type.String(),
  name: Type.String(),
  owner_id: field(Type.String(), (template) => template.owner.id),
  team_id: field(Nullable(Type.String()), (template) => template.team?.id ?? null),
  items: field(Type.Array(TemplateItem.schema), (template) => template.items.map(TemplateItem.map)),
  default_title: Nullable(Type.String()),
  personal_message: Nullable(Type.String()),
  reminders: field(Type.String(), (template) => String(template.reminders)),
  due_date_interval: Nullable(Type.Integer()),
  language: field(Type.String(), (template) => languageToRest(template.language)),
  created_at: Type.String(),
  updated_at: Type.String(),
}));
