import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, UNKNOWN_ID } from '../../support/fixtures';
import { createContract } from '../../support/files';

describe('REST request items', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let request: { id: string; items: Array<{ id: string }> };

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
    request = await createRequest(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', phone: '+15551234567' }],
    });
  });
  afterAll(() => t.close());

  describe('POST /requests/{request_id}/items', () => {
    it('should add an upload item at the end and answer shape A', async () => {
      const response = await api.post(`/requests/${request.id}/items`, {
        name: 'Bank statement',
        type: 'UPLOAD',
        description: 'Last 3 months',
        required: true,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: expect.any(String),
        name: 'Bank statement',
        type: 'UPLOAD',
        description: 'Last 3 months',
        required: true,
        answer: null,
        verified: false,
        is_na: false,
        form: null,
        form_answers: null,
        upload_rules: null,
      });
      const items = (await api.get(`/requests/${request.id}/items`, { 'api-revision': '1' })).json();
      expect(items[items.length - 1].id).toBe(response.json().id);
    });

    it('should take a question part for QUESTION and contractId for E_SIGNATURE', async () => {
      const question = await api.post(`/requests/${request.id}/items`, {
        name: 'Employer?',
        type: 'QUESTION',
        question: { type: 'TEXT', answer: 'Acme' },
      });
      expect(question.json()).toMatchObject({ type: 'QUESTION', answer: 'Acme' });
      const contract = await createContract(t.app, tenant.apiKey);
      const signature = await api.post(`/requests/${request.id}/items`, {
        name: 'Sign the engagement letter',
        type: 'E_SIGNATURE',
        contractId: contract.id,
      });
      expect(signature.statusCode).toBe(200);
      expect(signature.json()).toMatchObject({ type: 'E_SIGNATURE' });
    });

    it('should accept STANDARD as UPLOAD', async () => {
      expect((await api.post(`/requests/${request.id}/items`, { name: 'Payslip', type: 'STANDARD' })).json().type).toBe(
        'UPLOAD',
      );
    });

    it('should answer 422 for a missing name, an empty name or a bad type', async () => {
      for (const body of [{ type: 'UPLOAD' }, { name: ' ', type: 'UPLOAD' }, { name: 'x', type: 'VIDEO' }]) {
        const response = await api.post(`/requests/${request.id}/items`, body);
        expect(response.statusCode).toBe(422);
        expect(response.json().detail[0].loc[0]).toBe('body');
      }
    });

    it('should answer 404 Request not found for an unknown request', async () => {
      const response = await api.post(`/requests/${UNKNOWN_ID}/items`, { name: 'x', type: 'UPLOAD' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Request not found' });
    });
  });

  describe('GET /requests/{request_id}/items', () => {
    it('should answer shape B by default, with API-Revision 2', async () => {
      const response = await api.get(`/requests/${request.id}/items`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['api-revision']).toBe('2');
      const [upload, question] = response.json();
      expect(upload).toEqual({
        id: request.items[0].id,
        type: 'STANDARD',
        name: 'W-2',
        description: null,
        status: 'INCOMPLETE',
        required: true,
        attachments: [],
        assignedTo: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Diaz', phone: '+15551234567' },
        documents: [],
      });
      expect(question).toMatchObject({
        type: 'QUESTION',
        questions: { id: request.items[1].id, questionText: 'Any dependents?', questionAnswer: null },
      });
    });

    it('should answer shape A to API-Revision 1', async () => {
      const response = await api.get(`/requests/${request.id}/items`, { 'api-revision': '1' });
      expect(response.headers['api-revision']).toBe('1');
      expect(response.json()[0]).toEqual({
        id: request.items[0].id,
        name: 'W-2',
        type: 'UPLOAD',
        description: null,
        required: true,
        answer: null,
        verified: false,
        is_na: false,
        form: null,
        form_answers: null,
        upload_rules: null,
      });
    });

    it('should answer 422 to an unknown API-Revision', async () => {
      const response = await api.get(`/requests/${request.id}/items`, { 'api-revision': '7' });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0].loc).toEqual(['header', 'API-Revision']);
    });

    it('should answer 404 for an unknown request', async () => {
      expect((await api.get(`/requests/${UNKNOWN_ID}/items`)).statusCode).toBe(404);
    });
  });

  describe('GET /requests/{request_id}/items/{item_id}', () => {
    it('should answer the item in shape A', async () => {
      const response = await api.get(`/requests/${request.id}/items/${request.items[0].id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: request.items[0].id, name: 'W-2', type: 'UPLOAD' });
    });

    it('should answer 404 Item not found for an unknown item or an item of another request', async () => {
      const other = await createRequest(t.app, tenant.apiKey);
      for (const url of [
        `/requests/${request.id}/items/${UNKNOWN_ID}`,
        `/requests/${request.id}/items/${other.items[0].id}`,
      ]) {
        const response = await api.get(url);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ detail: 'Item not found' });
      }
    });
  });

  describe('PATCH /requests/{request_id}/items/{item_id}', () => {
    it('should change name, description and required', async () => {
      const response = await api.patch(`/requests/${request.id}/items/${request.items[1].id}`, {
        name: 'Dependents?',
        description: 'Children under 18',
        required: true,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        name: 'Dependents?',
        description: 'Children under 18',
        required: true,
        type: 'QUESTION',
      });
    });

    it('should refuse a name shorter than 1 character with 422', async () => {
      const response = await api.patch(`/requests/${request.id}/items/${request.items[1].id}`, { name: '' });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_short' });
    });

    it('should answer 404 for an item of another request', async () => {
      const other = await createRequest(t.app, tenant.apiKey);
      const response = await api.patch(`/requests/${request.id}/items/${other.items[0].id}`, { name: 'x' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Item not found' });
    });
  });

  describe('POST /requests/{request_id}/items/{item_id}/verify', () => {
    it('should mark the item VERIFIED', async () => {
      const response = await api.post(`/requests/${request.id}/items/${request.items[0].id}/verify`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: request.items[0].id, verified: true });
      const [item] = (await api.get(`/requests/${request.id}/items`)).json();
      expect(item.status).toBe('VERIFIED');
    });

    it('should answer 404 for an unknown item', async () => {
      expect((await api.post(`/requests/${request.id}/items/${UNKNOWN_ID}/verify`)).statusCode).toBe(404);
    });
  });

  describe('on a closed request', () => {
    it('should refuse to add, change or remove items with 422, and still verify', async () => {
      const closed = await createRequest(t.app, tenant.apiKey);
      await api.post(`/requests/${closed.id}/close`);
      const calls = [
        () => api.post(`/requests/${closed.id}/items`, { name: 'Late', type: 'UPLOAD' }),
        () => api.patch(`/requests/${closed.id}/items/${closed.items[0].id}`, { name: 'Renamed' }),
        () => api.delete(`/requests/${closed.id}/items/${closed.items[0].id}`),
      ];
      for (const call of calls) {
        const response = await call();
        expect(response.statusCode).toBe(422);
        expect(response.json().detail[0]).toMatchObject({ loc: ['body'], type: 'invalid_state' });
      }
      expect((await api.post(`/requests/${closed.id}/items/${closed.items[0].id}/verify`)).statusCode).toBe(200);
    });
  });

  describe('DELETE /requests/{request_id}/items/{item_id}', () => {
    it('should answer 204 without a body, then 404', async () => {
      const created = (await api.post(`/requests/${request.id}/items`, { name: 'Temporary', type: 'UPLOAD' })).json();
      const response = await api.delete(`/requests/${request.id}/items/${created.id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await api.get(`/requests/${request.id}/items/${created.id}`)).statusCode).toBe(404);
      expect((await api.delete(`/requests/${request.id}/items/${created.id}`)).statusCode).toBe(404);
    });
  });
});
