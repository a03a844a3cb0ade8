import { PDFDocument } from 'pdf-lib';
import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, UNKNOWN_ID } from '../../support/fixtures';
import { createContract, docBytes, docxBytes, pdfBytes, upload } from '../../support/files';

describe('REST contracts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  describe('POST /contracts', () => {
    it('should take a multipart PDF and answer 200 with document and annotationUrl', async () => {
      const response = await upload(t.app, tenant.apiKey, '/contracts', await pdfBytes(), { filename: 'SignMe.pdf' });
      expect(response.statusCode).toBe(200);
      const id = response.json().id;
      expect(response.json()).toEqual({
        id,
        document: { id, name: 'SignMe.pdf', mime: 'application/pdf' },
        annotationUrl: expect.stringMatching(`^https://gather.test/contracts/${id}/edit\\?token=`),
        annotations: [],
        fields: [],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('should take the raw bytes, named by ?name= or Content-Disposition', async () => {
      const byQuery = await api.post('/contracts?name=Lease.pdf', await pdfBytes(), {
        'content-type': 'application/octet-stream',
      });
      expect(byQuery.json().document).toEqual({ id: byQuery.json().id, name: 'Lease.pdf', mime: 'application/pdf' });
      const byHeader = await api.post('/contracts', await pdfBytes(), {
        'content-type': 'application/pdf',
        'content-disposition': 'attachment; filename="NDA.pdf"',
      });
      expect(byHeader.json().document.name).toBe('NDA.pdf');
    });

    it('should accept DOCX and DOC by their content', async () => {
      const docx = await upload(t.app, tenant.apiKey, '/contracts', await docxBytes(), { filename: 'terms.docx' });
      expect(docx.json().document.mime).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
      const doc = await api.post('/contracts?name=old.doc', docBytes(), { 'content-type': 'application/octet-stream' });
      expect(doc.json().document.mime).toBe('application/msword');
    });

    it('should refuse a text file named .pdf, and an image, with 415', async () => {
      const text = await upload(t.app, tenant.apiKey, '/contracts', 'I am not a PDF', {
        filename: 'contract.pdf',
        type: 'application/pdf',
      });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toEqual({
        detail: 'A contract must be a PDF, DOC or DOCX document (the content is text/plain)',
      });
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
      expect(
        (await api.post('/contracts?name=x.pdf', png, { 'content-type': 'application/octet-stream' })).statusCode,
      ).toBe(415);
      const [{ n }] = await t.orm.em
        .fork()
        .getConnection()
        .execute("select count(*)::int as n from stored_file where name in ('contract.pdf', 'x.pdf')");
      expect(n).toBe(0);
    });
  });

  describe('GET, PATCH, DELETE /contracts/{contract_id}', () => {
    it('should replace annotations and fields and answer them in the spec shape', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      const body = {
        annotations: [
          {
            id: 'a1',
            type: 'string',
            defaultValue: 'ACME Inc.',
            layout: { page: 1, position: { offset_x: 50, offset_y: 60, anchor_point: 'TOP_LEFT' } },
          },
        ],
        fields: [
          {
            type: 'signature',
            placeholder: 'Sign here',
            assigned_to: { email: 'ana@example.com', firstName: 'Ana' },
            layout: {
              page: 1,
              position: { offset_x: 40, offset_y: 40, anchor_point: 'BOTTOM_RIGHT' },
              style: { width: 200, height: 40 },
            },
          },
          { type: 'date' },
        ],
      };
      const response = await api.patch(`/contracts/${contract.id}`, body);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject(body);
      expect(response.json().fields[1]).toEqual({ type: 'date' });
      expect((await api.get(`/contracts/${contract.id}`)).json()).toMatchObject(body);
      expect((await api.get('/contracts')).json().map((c: { id: string }) => c.id)).toContain(contract.id);

      const onlyFields = await api.patch(`/contracts/${contract.id}`, { fields: [] });
      expect(onlyFields.json()).toMatchObject({ annotations: body.annotations, fields: [] });
    });

    it('should answer 400 for bad annotation or field shapes, 422 for a bad id, 404 for an unknown one', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      for (const bad of [
        { annotations: [{ type: 'colour' }] },
        { fields: [{ placeholder: 'no type' }] },
        { fields: [{ type: 'text', layout: { position: { offset_x: -1, offset_y: 0, anchor_point: 'TOP_LEFT' } } }] },
        { fields: [{ type: 'text', layout: { style: { width: 0, height: 10 } } }] },
        { annotations: 'none' },
      ]) {
        const response = await api.patch(`/contracts/${contract.id}`, bad);
        expect(response.statusCode).toBe(400);
        expect(response.json().detail[0].loc[0]).toBe('body');
      }
      const email = await api.patch(`/contracts/${contract.id}`, {
        fields: [{ type: 'text', assigned_to: { email: 'not-an-email' } }],
      });
      expect(email.statusCode).toBe(400);
      expect(email.json().detail).toEqual([
        {
          loc: ['body', 'fields', 0, 'assigned_to', 'email'],
          msg: 'Input should be an email address',
          type: 'invalid',
        },
      ]);
      expect((await api.patch('/contracts/nope', {})).statusCode).toBe(422);
      expect((await api.patch(`/contracts/${UNKNOWN_ID}`, {})).json()).toEqual({ detail: 'Contract not found' });
    });

    it('should answer 400 with an entry for a body that is not JSON', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/contracts/${contract.id}`,
        payload: '{"fields": ',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        detail: [{ loc: ['body'], msg: expect.stringMatching(/^Body is not valid JSON: /), type: 'json_invalid' }],
      });
    });

    it('should delete a contract unless an open request uses it', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      const request = await createRequest(t.app, tenant.apiKey, {
        items: [{ type: 'E_SIGNATURE', name: 'Sign', contractId: contract.id }],
      });
      const refused = await api.delete(`/contracts/${contract.id}`);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().detail[0]).toMatchObject({ type: 'invalid_state' });
      await api.post(`/requests/${request.id}/close`);
      expect((await api.delete(`/contracts/${contract.id}`)).statusCode).toBe(204);
      expect((await api.get(`/contracts/${contract.id}`)).statusCode).toBe(404);
    });

    it("should answer 404 for another organization's contract", async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      const stranger = client(t.app, (await createTenant(t.db)).apiKey);
      expect((await stranger.get(`/contracts/${contract.id}`)).statusCode).toBe(404);
      expect((await stranger.patch(`/contracts/${contract.id}`, { fields: [] })).statusCode).toBe(404);
      expect((await stranger.delete(`/contracts/${contract.id}`)).statusCode).toBe(404);
      expect((await stranger.get(`/contracts/${contract.id}/preview`)).statusCode).toBe(404);
      expect((await stranger.get('/contracts')).json()).toEqual([]);
    });
  });

  describe('GET /contracts/{contract_id}/preview', () => {
    it('should answer the PDF with its boxes drawn, and 415 for a DOCX', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      await api.patch(`/contracts/${contract.id}`, {
        fields: [
          { type: 'signature', placeholder: 'Sign – here ✓', layout: { page: 1 } },
          { type: 'text', layout: { page: 9 } },
        ],
      });
      const response = await api.get(`/contracts/${contract.id}/preview`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      expect(response.headers['content-disposition']).toBe('inline; filename="Engagement letter.preview.pdf"');
      const pdf = await PDFDocument.load(response.rawPayload);
      expect(pdf.getPageCount()).toBe(1);
      expect(response.rawPayload.length).toBeGreaterThan((await pdfBytes()).length);

      const docx = await upload(t.app, tenant.apiKey, '/contracts', await docxBytes(), { filename: 'terms.docx' });
      expect((await api.get(`/contracts/${docx.json().id}/preview`)).statusCode).toBe(415);
      // Starts like a PDF (so the upload takes it), has no page tree.
      const broken = await upload(t.app, tenant.apiKey, '/contracts', '%PDF-1.7\nthis is not really a PDF\n', {
        filename: 'broken.pdf',
      });
      const brokenPreview = await api.get(`/contracts/${broken.json().id}/preview`);
      expect(brokenPreview.statusCode).toBe(415);
      expect(brokenPreview.json()).toEqual({ detail: 'The contract starts like a PDF but could not be read as one' });
    });
  });

  describe('E_SIGNATURE items', () => {
    it('should take a contract of the organization and show eSignature in shape B', async () => {
      const contract = await createContract(t.app, tenant.apiKey);
      await api.patch(`/contracts/${contract.id}`, { fields: [{ type: 'signature' }] });
      const request = await createRequest(t.app, tenant.apiKey, {
        items: [{ type: 'E_SIGNATURE', name: 'Sign', contractId: contract.id }],
      });
      const [item] = (await api.get(`/requests/${request.id}/items`)).json();
      expect(item.eSignature).toEqual({ contractId: contract.id, annotations: [], fields: [{ type: 'signature' }] });
    });

    it('should answer 422 for a contractId that names no contract of the organization', async () => {
      const other = await createTenant(t.db);
      const theirs = await createContract(t.app, other.apiKey);
      const response = await api.post('/requests', {
        name: 'x',
        recipients: [{ email: 'ana@example.com' }],
        items: [{ type: 'E_SIGNATURE', name: 'Sign', contractId: theirs.id }],
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ['body', 'items', 0, 'contract_id'], msg: 'Names no contract of your organization', type: 'not_found' },
      ]);
      const request = await createRequest(t.app, tenant.apiKey);
      const item = await api.post(`/requests/${request.id}/items`, {
        type: 'E_SIGNATURE',
        name: 'Sign',
        contract_id: UNKNOWN_ID,
      });
      expect(item.statusCode).toBe(422);
    });

    it('should refuse an E_SIGNATURE item without a contract (422 on contractId; a userError in GraphQL)', async () => {
      const created = await api.post('/requests', {
        name: 'x',
        recipients: [{ email: 'ana@example.com' }],
        items: [{ type: 'E_SIGNATURE', name: 'Sign' }],
      });
      expect([created.statusCode, created.json().detail]).toEqual([
        422,
        [{ loc: ['body', 'items', 0, 'contract_id'], msg: 'An E_SIGNATURE item needs a contract', type: 'required' }],
      ]);
      const request = await createRequest(t.app, tenant.apiKey);
      const added = await api.post(`/requests/${request.id}/items`, { type: 'E_SIGNATURE', name: 'Sign' });
      expect([added.statusCode, added.json().detail[0].loc]).toEqual([422, ['body', 'contract_id']]);

      const viaGraphql = await api.graphql(
        `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id } userErrors { field code } } }`,
        { input: { name: 'x', recipients: [{ email: 'ana@example.com' }], items: [{ eSignature: { name: 'Sign' } }] } },
      );
      expect(viaGraphql.data.requestCreate).toEqual({
        request: null,
        userErrors: [{ field: ['input', 'items', '0', 'contractId'], code: 'REQUIRED' }],
      });
      const itemViaGraphql = await api.graphql(
        `mutation ($id: ID!) { itemCreate(requestId: $id, input: { eSignature: { name: "Sign" } }) { item { id } userErrors { field code } } }`,
        { id: request.id },
      );
      expect(itemViaGraphql.data.itemCreate).toEqual({
        item: null,
        userErrors: [{ field: ['input', 'contractId'], code: 'REQUIRED' }],
      });
      expect((await api.get(`/requests/${request.id}/items`)).json()).toHaveLength(2);
    });
  });
});
