import { Type } from '@sinclair/typebox';
import {
  OrganizationTemplateListDocument,
  TemplateCreateDocument,
  TemplateDeleteDocument,
  TemplateGetDocument,
  TemplateListDocument,
  TemplateUpdateDocument,
  type TemplateCreateInput,
} from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization, inputFromBody, noContent } from '../../kernel/rest/mapping';
import {
  Query,
  listQuery,
  NoContent,
  Nullable,
  StringEnum,
  Text,
  Uuid,
  withErrors,
  Body,
} from '../../kernel/rest/schemas';
import { ITEM_TYPES, QUESTION_TYPES } from '../items/item.enums';
import { LanguageSchema, languageFromRest } from '../requests/request.rest-shapes';
import { MAX_PERSONAL_MESSAGE, MAX_REMINDERS, MIN_REMINDERS } from '../requests/request.limits';
import { MAX_ANSWER, MAX_ITEM_DESCRIPTION, MAX_ITEM_NAME } from '../items/item.limits';
import { ItemFormBody, itemFormInputFromRest } from '../forms/form.rest-shapes';
import { MAX_DEFAULT_TITLE, MAX_DUE_DATE_INTERVAL, MAX_TEMPLATE_ITEMS, MAX_TEMPLATE_NAME } from './template.limits';
import { restTemplate, TemplateBody } from './template.rest-shapes';
import { UploadRulesBody, uploadRulesInputFromRest } from '../items/item.upload-rules.rest';

const tags = ['Templates'];
const IdParams = Type.Object({ id: Uuid() });
const ListQuery = Query({ limit: listQuery('desc').properties.limit });

const TemplateItemBody = Body(
  {
    name: Text(MAX_ITEM_NAME, { minLength: 1 }),
    type: StringEnum([...ITEM_TYPES, 'STANDARD'], 'UPLOAD (or STANDARD), E_SIGNATURE or QUESTION'),
    description: Nullable(Text(MAX_ITEM_DESCRIPTION)),
    required: Nullable(Type.Boolean()),
    received: Nullable(Type.Boolean()),
    question: Nullable(Body({ type: Nullable(StringEnum(QUESTION_TYPES)), answer: Nullable(Text(MAX_ANSWER)) })),
    form: Nullable(ItemFormBody),
    upload_rules: Nullable(UploadRulesBody),
  },
  ['name', 'type'],
);

const templateFields = {
  name: Text(MAX_TEMPLATE_NAME, { minLength: 1 }),
  items: Type.Array(TemplateItemBody, { maxItems: MAX_TEMPLATE_ITEMS }),
  default_title: Nullable(Text(MAX_DEFAULT_TITLE)),
  personal_message: Nullable(Text(MAX_PERSONAL_MESSAGE)),
  reminders: Type.Integer({ minimum: MIN_REMINDERS, maximum: MAX_REMINDERS }),
  due_date_interval: Nullable(Type.Integer({ minimum: 0, maximum: MAX_DUE_DATE_INTERVAL })),
  language: LanguageSchema,
};
const TemplateCreateBody = Body(
  {
    ...templateFields,
    items: Nullable(templateFields.items),
    reminders: Nullable(templateFields.reminders),
    language: Nullable(LanguageSchema),
  },
  ['name'],
);
const TemplateUpdateBody = Body(templateFields);

const templateItemsFromRest = (items: (typeof TemplateItemBody)['static'][]) =>
  items.map((item) => ({
    kind: item.type === 'STANDARD' ? 'UPLOAD' : item.type,
    name: item.name,
    description: item.description,
    required: item.required,
    received: item.received,
    question: item.question,
    form: itemFormInputFromRest(item.form),
    uploadRules: uploadRulesInputFromRest(item.upload_rules),
  }));

const templateInput = (body: Record<string, unknown>) =>
  inputFromBody(body, Object.keys(templateFields), { language: languageFromRest, items: templateItemsFromRest });

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
    schema: {
      params: Type.Object({ org_id: Uuid() }),
      querystring: ListQuery,
      response: withErrors({ 200: Type.Array(TemplateBody) }),
    },
    operation: OrganizationTemplateListDocument,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data) => {
      return { body: foundOrganization(data.node, 'templates').templates.nodes.map(restTemplate) };
    },
  }),
];
