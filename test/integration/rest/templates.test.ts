import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { UNKNOWN_ID } from '../../support/fixtures';
import { MAX_FORM_FIELD_NAME } from '../../../src/modules/forms/form.limits';

/** A form of the tenant's organization, made before the tests. */
let FORM_ID: string;

const templateBody = () => ({
  name: 'Onboarding',
  default_title: 'Welcome pack',
  personal_message: 'Hi!',
  reminders: 2,
  due_date_interval: 14,
  language: 'de',
  items: [
    { name: 'Passport', type: 'UPLOAD', description: 'Both pages', required: true, received: false },
    { name: 'Start date?', type: 'QUESTION', question: { type: 'TEXT', answer: 'Monday' } },
    {
      name: 'Tax form',
      type: 'UPLOAD',
      form: { id: FORM_ID, allow_file_upload: true, fields: { ssn: { default_value: '', read_only: false } } },
    },
  ],
});

describe('REST templates', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
    const fields = JSON.parse('{"ssn": {"read_only": true}, "__proto__": {}}');
    FORM_ID = (await api.post('/forms', { name: 'Tax form', fields })).json().id;
  });
  afterAll(() => t.close());

  it('POST /templates should create a template with items in shape A and reminders as a string', async () => {
    const response = await api.post('/templates', templateBody());
    expect(response.statusCode).toBe(200);
    const template = response.json();
    expect(template).toMatchObject({
      name: 'Onboarding',
      owner_id: tenant.userId,
      team_id: null,
      default_title: 'Welcome pack',
      personal_message: 'Hi!',
      reminders: '2',
      due_date_interval: 14,
      language: 'de',
    });
    expect(template.items).toEqual([
      {
        id: expect.any(String),
        name: 'Passport',
        type: 'UPLOAD',
        description: 'Both pages',
        required: true,
        answer: null,
        verified: false,
        is_na: false,
        received: false,
        form: null,
        upload_rules: null,
      },
      {
        id: expect.any(String),
        name: 'Start date?',
        type: 'QUESTION',
        description: null,
        required: false,
        answer: 'Monday',
        verified: false,
        is_na: false,
        received: false,
        form: null,
        upload_rules: null,
      },
      {
        id: expect.any(String),
        name: 'Tax form',
        type: 'UPLOAD',
        description: null,
        required: false,
        answer: null,
        verified: false,
        is_na: false,
        received: false,
        // The form's fields, with the item's change to `ssn`.
        form: {
          id: FORM_ID,
          name: 'Tax form',
          allow_file_upload: true,
          fields: JSON.parse(
            '{"ssn": {"default_value": "", "read_only": false}, "__proto__": {"default_value": null, "read_only": false}}',
          ),
        },
        upload_rules: null,
      },
    ]);
  });

  it('POST /templates should default reminders to 3 and language to en-US, and require a name', async () => {
    const response = await api.post('/templates', { name: 'Bare' });
    expect(response.json()).toMatchObject({ reminders: '3', language: 'en-US', items: [] });
    const missing = await api.post('/templates', { items: [] });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  });

  it('POST /templates should accept STANDARD as UPLOAD', async () => {
    const response = await api.post('/templates', { name: 'Standard', items: [{ name: 'a', type: 'STANDARD' }] });
    expect(response.json().items[0].type).toBe('UPLOAD');
  });

  it('POST /templates should answer 422 for bad items', async () => {
    const response = await api.post('/templates', {
      name: 'Bad',
      items: [
        { name: '', type: 'UPLOAD' },
        { name: 'x', type: 'NOPE' },
        { name: 'y', type: 'UPLOAD', form: { id: 'not-a-uuid' } },
      ],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.items.0.name', 'body.items.1.type', 'body.items.2.form.id']),
    );
  });

  it("POST /templates should quote a form's field names back as sent in the loc of a 422", async () => {
    const names = [`First${'x'.repeat(MAX_FORM_FIELD_NAME)}`, '1'.repeat(MAX_FORM_FIELD_NAME + 1)];
    const form = { id: FORM_ID, fields: Object.fromEntries(names.map((name) => [name, { default_value: 'v' }])) };
    const response = await api.post('/templates', {
      name: 'Long field names',
      items: [{ name: 'Tax form', type: 'UPLOAD', form }],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      names.map((name) => ['body', 'items', 0, 'form', 'fields', name]),
    );
  });

  it('POST /templates should keep a form field named __proto__ like any other', async () => {
    const fields = JSON.parse(
      '{"__proto__": {"default_value": "x", "read_only": true}, "ssn": {"default_value": "", "read_only": false}}',
    );
    const response = await api.post('/templates', {
      name: 'Odd field',
      items: [{ name: 'Tax form', type: 'UPLOAD', form: { id: FORM_ID, fields } }],
    });
    expect(response.statusCode).toBe(200);
    const stored = (await api.get(`/templates/${response.json().id}`)).json().items[0].form.fields;
    expect(Object.keys(stored).sort()).toEqual(['__proto__', 'ssn']);
    expect(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toEqual({
      default_value: 'x',
      read_only: true,
    });
  });

  it('GET /templates/{id} should answer the template; 404 Template not found otherwise', async () => {
    const created = (await api.post('/templates', templateBody())).json();
    const response = await api.get(`/templates/${created.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(created);
    const missing = await api.get(`/templates/${UNKNOWN_ID}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Template not found' });
  });

  it('PATCH /templates/{id} should change given fields and replace items when given', async () => {
    const created = (await api.post('/templates', templateBody())).json();
    const renamed = await api.patch(`/templates/${created.id}`, { name: 'Renamed', reminders: 9 });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Renamed', reminders: '9', default_title: 'Welcome pack' });
    expect(renamed.json().items).toHaveLength(3);
    const replaced = await api.patch(`/templates/${created.id}`, { items: [{ name: 'Only', type: 'UPLOAD' }] });
    expect(replaced.json().items.map((i: { name: string }) => i.name)).toEqual(['Only']);
    expect((await api.patch(`/templates/${UNKNOWN_ID}`, { name: 'x' })).statusCode).toBe(404);
    expect((await api.patch(`/templates/${created.id}`, { name: '' })).statusCode).toBe(422);
  });

  it('DELETE /templates/{id} should answer 204, keep requests made from it, then 404', async () => {
    const created = (await api.post('/templates', templateBody())).json();
    const request = (
      await api.post('/requests', { template_id: created.id, recipients: [{ email: 'a@example.com' }] })
    ).json();
    const response = await api.delete(`/templates/${created.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await api.get(`/templates/${created.id}`)).statusCode).toBe(404);
    const kept = (await api.get(`/requests/${request.id}`)).json();
    expect(kept.template_id).toBeNull();
    expect(kept.items).toHaveLength(3);
  });

  it('GET /templates and GET /organizations/{org_id}/templates should list newest first', async () => {
    const other = await createTenant(t.db);
    const otherApi = client(t.app, other.apiKey);
    const first = (await otherApi.post('/templates', { name: 'First' })).json();
    const second = (await otherApi.post('/templates', { name: 'Second' })).json();
    expect((await otherApi.get('/templates')).json().map((x: { id: string }) => x.id)).toEqual([second.id, first.id]);
    const org = await otherApi.get(`/organizations/${other.organizationId}/templates?limit=1`);
    expect(org.json().map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect((await otherApi.get(`/organizations/${tenant.organizationId}/templates`)).statusCode).toBe(404);
  });
});
