import { Type } from '@sinclair/typebox';
import {
  OrganizationTemplateListDocument,
  TemplateCreateDocument,
  TemplateDeleteDocument,
  TemplateGetDocument,
  TemplateListDocument,
  TemplateUpdateDocument,
  type TemplateCreateInput,
  type RestTemplateFragment,
} from '../../kernel/graphql/__generated__/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization, inputFromBody, noContent } from '../../kernel/rest/mapping';
import { Query, listQuery, NoContent, Nullable, StringEnum, Text, Uuid, withErrors, Body } from '../../kernel/rest/schemas';
import { ITEM_TYPES, QUESTION_TYPES } from '../requests/request.enums';
import { LanguageSchema, languageFromRest, languageToRest } from '../requests/request.rest-shapes';


const tags = ['Templates'];
const IdParams = Type.Object({ id: Uuid() });
const ListQuery = Query({ limit: listQuery('desc').properties.limit });

const FormField = Body({ default_value: Nullable(Text(1000)), read_only: Nullable(Type.Boolean()) });

const TemplateItemBody = Body(
  {
    name: Text(1000, { minLength: 1 }),
    type: StringEnum([...ITEM_TYPES, 'STANDARD'], 'UPLOAD (or STANDARD), E_SIGNATURE or QUESTION'),
    description: Nullable(Text(5000)),
    required: Nullable(Type.Boolean()),
    received: Nullable(Type.Boolean()),
    question: Nullable(Body({ type: Nullable(StringEnum(QUESTION_TYPES)), answer: Nullable(Text(10000)) })),
    form: Nullable(
      Body(
        {
          id: Uuid(),
          allow_file_upload: Nullable(Type.Boolean()),
          fields: Nullable(Type.Unsafe<Record<string, { default_value?: string | null; read_only?: boolean | null }>>({ type: 'object', additionalProperties: FormField, maxProperties: 100 })),
        }, ['id']),
    ),
  }, ['name', 'type']);

const templateFields = {
  name: Text(255, { minLength: 1 }),
  items: Type.Array(TemplateItemBody, { maxItems: 100 }),
  default_title: Nullable(Text(255)),
  personal_message: Nullable(Text(5000)),
  reminders: Type.Integer({ minimum: -1, maximum: 365 }),
  due_date_interval: Nullable(Type.Integer({ minimum: 0, maximum: 3650 })),
  language: LanguageSchema,
};
const TemplateCreateBody = Body(
  { ...templateFields, items: Nullable(templateFields.items), reminders: Nullable(templateFields.reminders), language: Nullable(LanguageSchema) }, ['name']);
const TemplateUpdateBody = Body(templateFields);

const templateItemsFromRest = (items: (typeof TemplateItemBody)['static'][]) =>
  items.map((item) => ({
    kind: item.type === 'STANDARD' ? 'UPLOAD' : item.type,
    name: item.name,
    description: item.description,
    required: item.required,
    received: item.received,
    question: item.question,
    form: item.form && {
      id: item.form.id,
      allowFileUpload: item.form.allow_file_upload,
      fields: item.form.fields && Object.fromEntries(Object.entries(item.form.fields).map(([name, f]) => [name, { defaultValue: f.default_value, readOnly: f.read_only }])),
    },
  }));

const templateInput = (body: Record<string, unknown>) =>
  inputFromBody(body, Object.keys(templateFields), { language: languageFromRest, items: templateItemsFromRest });

const TemplateItemOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  description: Nullable(Type.String()),
  required: Type.Boolean(),
  answer: Nullable(Type.String()),
  verified: Type.Boolean(),
  is_na: Type.Boolean(),
  received: Type.Boolean(),
  form: Nullable(Type.Object({ id: Type.String(), allow_file_upload: Type.Boolean(), fields: Type.Record(Type.String(), Type.Object({ default_value: Nullable(Type.String()), read_only: Type.Boolean() })) })),
});

const TemplateBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owner_id: Type.String(),
  team_id: Nullable(Type.String()),
  items: Type.Array(TemplateItemOut),
  default_title: Nullable(Type.String()),
  personal_message: Nullable(Type.String()),
  reminders: Type.String(),
  due_date_interval: Nullable(Type.Integer()),
  language: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

type FormFields = Record<string, { defaultValue?: string | null; readOnly?: boolean }>;

const restTemplate = (template: RestTemplateFragment) => ({
  id: template.id,
  name: template.name,
  owner_id: template.owner.id,
  team_id: template.team?.id ?? null,
  // Items in shape A; a template item is never verified nor marked not applicable.
  items: template.items.map((item) => ({
    id: item.id,
    name: item.name,
    type: item.kind,
    description: item.description,
    required: item.required,
    answer: item.answer,
    verified: false,
    is_na: false,
    received: item.received,
    form: item.form && {
      id: item.form.id,
      allow_file_upload: item.form.allowFileUpload,
      fields: Object.fromEntries(Object.entries(item.form.fields as FormFields).map(([name, f]) => [name, { default_value: f.defaultValue ?? null, read_only: f.readOnly ?? false }])),
    },
  })),
  default_title: template.defaultTitle,
  personal_message: template.personalMessage,
  reminders: String(template.reminders),
  due_date_interval: template.dueDateInterval,
  language: languageToRest(template.language),
  created_at: template.createdAt,
  updated_at: template.updatedAt,
});

export const templateRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/templates',
    summary: 'List templates, newest first',
    tags,
    schema: { querystring: ListQuery, response: withErrors({ 200: Type.Array(TemplateBody) }, [422]) },
    operation: TemplateListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.templates.nodes.map(restTemplate) }),
  }),
  restRow({
    method: 'POST',
    url: '/templates',
    summary: 'Create a template',
    tags,
    schema: { body: TemplateCreateBody, response: withErrors({ 200: TemplateBody }, [422]) },
    operation: TemplateCreateDocument,
    // The body's schema requires what the input requires; inputFromBody renames whatever fields were sent.
    variables: ({ body }) => ({ input: templateInput(body) as TemplateCreateInput }),
    result: (data) => ({ body: restTemplate(fromPayload(data.templateCreate, 'template')) }),
  }),
  restRow({
    method: 'GET',
    url: '/templates/:id',
    summary: 'Get a template',
    tags,
    schema: { params: IdParams, response: withErrors({ 200: TemplateBody }) },
    operation: TemplateGetDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => ({ body: restTemplate(found(data.template, 'Template')) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/templates/:id',
    summary: 'Update a template (items, when given, replace all items)',
    tags,
    schema: { params: IdParams, body: TemplateUpdateBody, response: withErrors({ 200: TemplateBody }) },
    operation: TemplateUpdateDocument,
    variables: ({ params, body }) => ({ id: params.id, input: templateInput(body ?? {}) }),
    result: (data) => ({ body: restTemplate(fromPayload(data.templateUpdate, 'template')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/templates/:id',
    summary: 'Delete a template',
    tags,
    schema: { params: IdParams, response: withErrors({ 204: NoContent }) },
    operation: TemplateDeleteDocument,
    variables: ({ params }) => ({ id: params.id }),
    result: (data) => noContent(data.templateDelete, 'deletedTemplateId'),
  }),
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/templates',
    summary: "List an organization's templates",
    tags,
    schema: { params: Type.Object({ org_id: Uuid() }), querystring: ListQuery, response: withErrors({ 200: Type.Array(TemplateBody) }) },
    operation: OrganizationTemplateListDocument,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data) => {
      return { body: foundOrganization(data.node, 'templates').templates.nodes.map(restTemplate) };
    },
  }),
];
