import { parse } from 'csv-parse/sync';
import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { UNKNOWN_ID } from '../../support/fixtures';
import { requestWithLink, signedIn } from '../../support/portal';
import { unzip } from '../../support/zip';
import { MAX_FORM_FIELD_NAME, MAX_FORM_FIELDS, MAX_FORM_VALUE } from '../../../src/modules/forms/form.limits';

const intake = {
  name: 'Client intake',
  fields: {
    firm: { default_value: 'Acme Accounting', read_only: true },
    full_name: { default_value: null, read_only: false },
    tax_id: {},
    notes: { default_value: 'none' },
  },
};

describe('forms', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  async function createForm(body: Record<string, unknown> = intake) {
    const response = await api.post('/forms', body);
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  describe('REST /forms', () => {
    it('POST should answer the form, its fields in order with their defaults', async () => {
      const form = await createForm({ ...intake, allow_file_upload: true });
      expect(form).toEqual({
        id: expect.any(String),
        name: 'Client intake',
        fields: {
          firm: { default_value: 'Acme Accounting', read_only: true },
          full_name: { default_value: null, read_only: false },
          tax_id: { default_value: null, read_only: false },
          notes: { default_value: 'none', read_only: false },
        },
        allow_file_upload: true,
        owner_id: tenant.userId,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(Object.keys(form.fields)).toEqual(['firm', 'full_name', 'tax_id', 'notes']);
      expect((await createForm({ name: 'Bare', fields: { a: {} } })).allow_file_upload).toBe(false);
    });

    it('POST should answer 422 for a missing name or fields, bad field shapes and limits, field names quoted back', async () => {
      const missing = await api.post('/forms', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['body', 'name'],
        ['body', 'fields'],
      ]);
      const none = await api.post('/forms', { name: 'Empty', fields: {} });
      expect(none.statusCode).toBe(422);
      expect(none.json().detail[0].loc).toEqual(['body', 'fields']);
      const tooMany = await api.post('/forms', {
        name: 'Big',
        fields: Object.fromEntries(Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => [`f${i}`, {}])),
      });
      expect(tooMany.statusCode).toBe(422);
      const long = '7'.repeat(MAX_FORM_FIELD_NAME + 1);
      const bad = await api.post('/forms', {
        name: ' ',
        fields: { [long]: {}, ok: { default_value: 'x'.repeat(MAX_FORM_VALUE + 1) }, flag: { read_only: 'yes' } },
      });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
        expect.arrayContaining([
          ['body', 'fields', 'ok', 'default_value'],
          ['body', 'fields', 'flag', 'read_only'],
        ]),
      );
      const names = await api.post('/forms', { name: ' ', fields: { [long]: {} } });
      expect(names.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['body', 'name'],
        ['body', 'fields', long],
      ]);
    });

    it('GET should list the forms newest first and get one; another id is 404 Form not found', async () => {
      const first = await createForm({ name: 'First', fields: { a: {} } });
      const second = await createForm({ name: 'Second', fields: { b: {} } });
      const list = (await api.get('/forms?limit=2')).json();
      expect(list.map((f: { id: string }) => f.id)).toEqual([second.id, first.id]);
      expect((await api.get(`/forms/${first.id}`)).json()).toEqual(first);
      const missing = await api.get(`/forms/${UNKNOWN_ID}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: 'Form not found' });
      const other = await createTenant(t.db);
      expect((await client(t.app, other.apiKey).get(`/forms/${first.id}`)).statusCode).toBe(404);
      expect((await client(t.app, other.apiKey).get('/forms')).json()).toEqual([]);
    });
  });

  describe('GraphQL', () => {
    it('formCreate, form, forms and formDelete should follow the payload conventions', async () => {
      const created = await api.graphql(
        `mutation ($input: FormCreateInput!) { formCreate(input: $input) { form { id name allowFileUpload fields { name defaultValue readOnly } owner { id } } userErrors { field code } } }`,
        {
          input: {
            name: 'GraphQL form',
            fields: {
              city: { defaultValue: 'Lima', readOnly: false },
              country: { readOnly: true, defaultValue: 'Peru' },
            },
          },
        },
      );
      const form = created.data.formCreate.form;
      expect(form).toEqual({
        id: expect.any(String),
        name: 'GraphQL form',
        allowFileUpload: false,
        fields: [
          { name: 'city', defaultValue: 'Lima', readOnly: false },
          { name: 'country', defaultValue: 'Peru', readOnly: true },
        ],
        owner: { id: tenant.userId },
      });
      const refused = await api.graphql(
        `mutation { formCreate(input: { name: "", fields: { a: 1 } }) { form { id } userErrors { field code } } }`,
      );
      expect(refused.data.formCreate).toEqual({
        form: null,
        userErrors: [
          { field: ['input', 'name'], code: 'TOO_SHORT' },
          { field: ['input', 'fields', 'a'], code: 'INVALID' },
        ],
      });
      const read = await api.graphql(
        `query ($id: ID!) { form(id: $id) { name } forms(first: 1) { totalCount nodes { id } } node(id: $id) { ... on Form { name } } }`,
        { id: form.id },
      );
      expect(read.data.form).toEqual({ name: 'GraphQL form' });
      expect(read.data.forms.nodes).toEqual([{ id: form.id }]);
      expect(read.data.node).toEqual({ name: 'GraphQL form' });
      const deleted = await api.graphql(
        `mutation ($id: ID!) { formDelete(id: $id) { deletedFormId userErrors { code } } }`,
        { id: form.id },
      );
      expect(deleted.data.formDelete).toEqual({ deletedFormId: form.id, userErrors: [] });
    });
  });

  describe('items with a form, the recipient filling it, the owner reading it', () => {
    let form: { id: string };
    let request: { id: string; items: Array<{ id: string }> };
    let token: string;

    beforeAll(async () => {
      form = await createForm();
      ({ request, token } = await requestWithLink(t.app, tenant.apiKey, {
        name: 'Onboarding',
        items: [
          {
            type: 'UPLOAD',
            name: 'Intake',
            required: true,
            form: { id: form.id, fields: { full_name: { default_value: 'Ana Diaz' }, notes: { read_only: true } } },
          },
          { type: 'UPLOAD', name: 'Intake with files', form: { id: form.id, allow_file_upload: true } },
          { type: 'UPLOAD', name: 'Passport' },
        ],
      }));
    });

    it("should copy the form onto the item with the item's changes (shape A, shape B, GraphQL)", async () => {
      const expected = {
        id: form.id,
        name: 'Client intake',
        allow_file_upload: false,
        fields: {
          firm: { default_value: 'Acme Accounting', read_only: true },
          full_name: { default_value: 'Ana Diaz', read_only: false },
          tax_id: { default_value: null, read_only: false },
          notes: { default_value: 'none', read_only: true },
        },
      };
      const item = (await api.get(`/requests/${request.id}/items/${request.items[0].id}`)).json();
      expect(item).toMatchObject({ type: 'UPLOAD', form: expected, form_answers: null });
      expect((await api.get(`/requests/${request.id}/items/${request.items[2].id}`)).json()).toMatchObject({
        form: null,
        form_answers: null,
      });
      const [b] = (await api.get(`/requests/${request.id}/items`)).json();
      expect(b.form).toEqual({
        id: form.id,
        name: 'Client intake',
        allowFileUpload: false,
        fields: {
          firm: { defaultValue: 'Acme Accounting', readOnly: true },
          full_name: { defaultValue: 'Ana Diaz', readOnly: false },
          tax_id: { defaultValue: null, readOnly: false },
          notes: { defaultValue: 'none', readOnly: true },
        },
        answers: null,
      });
      const graphql = await api.graphql(
        `query ($id: ID!) { request(id: $id) { items { ... on UploadItem { form { id name form { id } fields { name } } formAnswers { field } } } } }`,
        { id: request.id },
      );
      expect(graphql.data.request.items[1].form).toEqual({
        id: form.id,
        name: 'Client intake',
        form: { id: form.id },
        fields: [{ name: 'firm' }, { name: 'full_name' }, { name: 'tax_id' }, { name: 'notes' }],
      });
    });

    it("should refuse a form of another organization, an unknown one, a change to a field the form lacks, and a form on a template's QUESTION item", async () => {
      const other = await createTenant(t.db);
      const foreign = (await client(t.app, other.apiKey).post('/forms', { name: 'Theirs', fields: { a: {} } })).json();
      const body = (formRef: unknown) => ({
        name: 'x',
        recipients: [{ email: 'a@example.com' }],
        items: [{ type: 'UPLOAD', name: 'F', form: formRef }],
      });
      for (const id of [foreign.id, UNKNOWN_ID]) {
        const response = await api.post('/requests', body({ id }));
        expect(response.statusCode).toBe(422);
        expect(response.json().detail).toEqual([
          { loc: ['body', 'items', 0, 'form', 'id'], msg: 'Names no form of your organization', type: 'not_found' },
        ]);
      }
      const unknownField = await api.post(`/requests/${request.id}/items`, {
        type: 'UPLOAD',
        name: 'F',
        form: { id: form.id, fields: { nickname: { default_value: 'x' } } },
      });
      expect(unknownField.statusCode).toBe(422);
      expect(unknownField.json().detail[0].loc).toEqual(['body', 'form', 'fields', 'nickname']);
      const template = await api.post('/templates', {
        name: 'T',
        items: [
          { type: 'QUESTION', name: 'Q', form: { id: form.id } },
          { type: 'UPLOAD', name: 'U', form: { id: foreign.id } },
        ],
      });
      expect(template.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['body', 'items', 1, 'form', 'id'],
        ['body', 'items', 0, 'form'],
      ]);
    });

    it("should give a request made from a template the template's copy of the form", async () => {
      const template = (
        await api.post('/templates', {
          name: 'With form',
          items: [{ type: 'UPLOAD', name: 'Intake', form: { id: form.id, allow_file_upload: true } }],
        })
      ).json();
      expect(template.items[0].form).toMatchObject({ id: form.id, name: 'Client intake', allow_file_upload: true });
      const made = (
        await api.post('/requests', { template_id: template.id, recipients: [{ email: 'b@example.com' }] })
      ).json();
      expect(made.items[0].form).toEqual(template.items[0].form);
    });

    it('should let the recipient fill the form: defaults prefilled, read-only fields refused, the item complete', async () => {
      const recipient = await signedIn(t.app, token);
      const view = (await recipient.request()).json();
      expect(view.items[0]).toMatchObject({
        form: {
          name: 'Client intake',
          allow_file_upload: false,
          fields: [
            { name: 'firm', default_value: 'Acme Accounting', read_only: true },
            { name: 'full_name', default_value: 'Ana Diaz', read_only: false },
            { name: 'tax_id', default_value: null, read_only: false },
            { name: 'notes', default_value: 'none', read_only: true },
          ],
        },
        form_answers: null,
        status: 'INCOMPLETE',
      });
      const put = (itemId: string, answers: unknown) =>
        t.app.inject({
          method: 'PUT',
          url: `${recipient.base}/items/${itemId}/form`,
          payload: { answers },
          headers: { authorization: `Bearer ${recipient.session}` },
        });
      const readOnly = await put(request.items[0].id, { firm: 'Evil Corp', nickname: 'A', full_name: 'Ana' });
      expect(readOnly.statusCode).toBe(422);
      expect(readOnly.json().detail).toEqual([
        { loc: ['body', 'answers', 'firm'], msg: 'This field is read-only', type: 'invalid' },
        { loc: ['body', 'answers', 'nickname'], msg: 'The form has no such field', type: 'invalid' },
      ]);
      const noForm = await put(request.items[2].id, { a: 'b' });
      expect(noForm.statusCode).toBe(422);
      const filled = await put(request.items[0].id, {
        firm: 'Acme Accounting',
        full_name: 'Ana María Díaz',
        tax_id: '=HYPERLINK("http://evil.example")',
      });
      expect(filled.statusCode).toBe(200);
      expect(filled.json()).toMatchObject({
        status: 'COMPLETE',
        form_answers: {
          firm: 'Acme Accounting',
          full_name: 'Ana María Díaz',
          tax_id: '=HYPERLINK("http://evil.example")',
          notes: 'none',
        },
      });
      // A form without files: an upload is refused; with allow_file_upload it goes with the answers.
      expect((await recipient.upload(request.items[0].id, 'scan', 'scan.txt')).statusCode).toBe(422);
      const upload = await recipient.upload(request.items[1].id, 'scan, with a comma', 'scan.txt');
      expect(upload.statusCode).toBe(200);
      expect(upload.json().status).toBe('INCOMPLETE');
      const graphql = await recipient.graphql(
        `mutation ($input: RecipientFormFillInput!) { recipientFormFill(input: $input) { item { status formAnswers { field value } } userErrors { field code } } }`,
        { input: { itemId: request.items[1].id, answers: { full_name: 'Ana, "the client"\nDíaz' } } },
      );
      expect(graphql.data.recipientFormFill.item.status).toBe('COMPLETE');
      expect(graphql.data.recipientFormFill.item.formAnswers).toEqual([
        { field: 'firm', value: 'Acme Accounting' },
        { field: 'full_name', value: 'Ana, "the client"\nDíaz' },
        { field: 'tax_id', value: '' },
        { field: 'notes', value: 'none' },
      ]);
    });

    it('should show the owner the answers on the item (REST and GraphQL)', async () => {
      const item = (await api.get(`/requests/${request.id}/items/${request.items[0].id}`)).json();
      expect(item.form_answers).toEqual({
        firm: 'Acme Accounting',
        full_name: 'Ana María Díaz',
        tax_id: '=HYPERLINK("http://evil.example")',
        notes: 'none',
      });
      const graphql = await api.graphql(
        `query ($id: ID!) { node(id: $id) { ... on UploadItem { status formAnswers { field value } } } }`,
        { id: request.items[0].id },
      );
      expect(graphql.data.node.status).toBe('COMPLETE');
      expect(graphql.data.node.formAnswers[1]).toEqual({ field: 'full_name', value: 'Ana María Díaz' });
    });

    it("should put each filled form in the request's zip as JSON and CSV beside the item's files", async () => {
      const response = await api.get(`/requests/${request.id}/download`);
      expect(response.statusCode).toBe(200);
      const entries = await unzip(response.rawPayload);
      expect(Object.keys(entries).sort()).toEqual([
        'Intake with files/Client intake.csv',
        'Intake with files/Client intake.json',
        'Intake with files/scan.txt',
        'Intake/Client intake.csv',
        'Intake/Client intake.json',
        'answers.csv',
        'answers.json',
      ]);
      // The forms' answers are in the request's answers too: a row per form item (one recipient).
      expect(
        JSON.parse(entries['answers.json']).map((row: { item: { name: string }; form: unknown }) => [
          row.item.name,
          row.form,
        ]),
      ).toEqual([
        [
          'Intake',
          {
            id: form.id,
            name: 'Client intake',
            answers: {
              firm: 'Acme Accounting',
              full_name: 'Ana María Díaz',
              tax_id: '=HYPERLINK("http://evil.example")',
              notes: 'none',
            },
          },
        ],
        [
          'Intake with files',
          {
            id: form.id,
            name: 'Client intake',
            answers: { firm: 'Acme Accounting', full_name: 'Ana, "the client"\nDíaz', tax_id: '', notes: 'none' },
          },
        ],
      ]);
      expect(parse(entries['answers.csv'], { bom: true, columns: true })[0]).toMatchObject({
        item_name: 'Intake',
        form_name: 'Client intake',
        form_answers: `firm: Acme Accounting\nfull_name: Ana María Díaz\ntax_id: =HYPERLINK("http://evil.example")\nnotes: none`,
      });

      expect(JSON.parse(entries['Intake/Client intake.json'])).toEqual({
        item: { id: request.items[0].id, name: 'Intake' },
        form: { id: form.id, name: 'Client intake' },
        answers: {
          firm: 'Acme Accounting',
          full_name: 'Ana María Díaz',
          tax_id: '=HYPERLINK("http://evil.example")',
          notes: 'none',
        },
      });
      expect(parse(entries['Intake/Client intake.csv'], { bom: true })).toEqual([
        ['field', 'value'],
        ['firm', 'Acme Accounting'],
        ['full_name', 'Ana María Díaz'],
        // Kept as text: a spreadsheet does not run it.
        ['tax_id', `'=HYPERLINK("http://evil.example")`],
        ['notes', 'none'],
      ]);
      expect(parse(entries['Intake with files/Client intake.csv'], { bom: true, columns: true })[1]).toEqual({
        field: 'full_name',
        value: 'Ana, "the client"\nDíaz',
      });
    });

    it('should refuse deleting the form while an open request uses it, and keep the copies once it is gone', async () => {
      const refused = await api.delete(`/forms/${form.id}`);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().detail[0]).toMatchObject({ loc: ['body'], type: 'invalid_state' });
      const using = (await api.get('/requests?limit=100'))
        .json()
        .filter((r: { items: { form: { id: string } | null }[] }) => r.items.some((i) => i.form?.id === form.id));
      for (const r of using) expect((await api.post(`/requests/${r.id}/close`)).statusCode).toBe(200);
      expect((await api.delete(`/forms/${form.id}`)).statusCode).toBe(204);
      expect((await api.get(`/forms/${form.id}`)).statusCode).toBe(404);
      const item = (await api.get(`/requests/${request.id}/items/${request.items[0].id}`)).json();
      expect(item.form.name).toBe('Client intake');
      expect(item.form_answers.full_name).toBe('Ana María Díaz');
      const graphql = await api.graphql(
        `query ($id: ID!) { node(id: $id) { ... on UploadItem { form { id form { id } } } } }`,
        { id: request.items[0].id },
      );
      expect(graphql.data.node.form).toEqual({ id: form.id, form: null });
    });
  });
});
