import { Type } from '@sinclair/typebox';
import { FormCreateDocument, FormDeleteDocument, FormGetDocument, FormListDocument } from '../../generated/operations';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { listQuery, NoContent, Uuid, withErrors } from '../../kernel/rest/schemas';
import { FormBody, FormCreateBody, formInputFromRest, restForm } from './form.rest-shapes';

const tags = ['Forms'];
const FormParams = Type.Object({ form_id: Uuid() });

export const formRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/forms',
    summary: 'Create a form: a name and its fields (`{name: {default_value, read_only}}`)',
    tags,
    schema: { body: FormCreateBody, response: withErrors({ 200: FormBody }, [422]) },
    operation: FormCreateDocument,
    variables: ({ body }) => ({ input: formInputFromRest(body) }),
    result: (data) => ({ body: restForm(fromPayload(data.formCreate, 'form')) }),
  }),
  restRow({
    method: 'GET',
    url: '/forms',
    summary: "List the organization's forms, newest first",
    tags,
    schema: { querystring: listQuery('desc'), response: withErrors({ 200: Type.Array(FormBody) }, [422]) },
    operation: FormListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.forms.nodes.map(restForm) }),
  }),
  restRow({
    method: 'GET',
    url: '/forms/:form_id',
    summary: 'Get a form',
    tags,
    schema: { params: FormParams, response: withErrors({ 200: FormBody }) },
    operation: FormGetDocument,
    variables: ({ params }) => ({ id: params.form_id }),
    result: (data) => ({ body: restForm(found(data.form, 'Form')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/forms/:form_id',
    summary: 'Delete a form (422 while an open request uses it)',
    tags,
    schema: { params: FormParams, response: withErrors({ 204: NoContent }) },
    operation: FormDeleteDocument,
    variables: ({ params }) => ({ id: params.form_id }),
    result: (data) => noContent(data.formDelete, 'deletedFormId'),
  }),
];
