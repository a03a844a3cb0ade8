import { createHash } from 'node:crypto';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, UNKNOWN_ID } from '../../support/fixtures';
import { storedObjects, submit } from '../../support/documents';
import { unzip } from '../../support/zip';

describe('REST documents', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let request: { id: string; items: Array<{ id: string }> };

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    api = client(t.app, tenant.apiKey);
    request = await createRequest(t.app, tenant.apiKey, {
      items: [
        { type: 'UPLOAD', name: 'Pay/stubs: 2024', required: true },
        { type: 'UPLOAD', name: 'pay\\stubs: 2024' },
        { type: 'UPLOAD', name: '..' },
      ],
    });
  });
  afterAll(() => t.close());

  it('should answer 204 for the zip and the item download while there is no document', async () => {
    expect((await api.get(`/requests/${request.id}/download`)).statusCode).toBe(204);
    expect((await api.get(`/requests/${request.id}/items/${request.items[0].id}/download`)).statusCode).toBe(204);
    expect((await api.get(`/requests/${request.id}/documents`)).json()).toEqual([]);
  });

  it('should list, get and download documents, per request and per item', async () => {
    const document = await submit(t, tenant, request.id, request.items[0].id, 'January pay stub', 'jan.txt');
    const expected = {
      id: document.id,
      name: 'jan.txt',
      mime: 'text/plain',
      size: 16,
      sha256: createHash('sha256').update('January pay stub').digest('hex'),
      request_id: request.id,
      item_id: request.items[0].id,
      download_url: `https://gather.test/documents/${document.id}/download`,
      created_at: expect.any(String),
    };
    expect((await api.get(`/documents/${document.id}`)).json()).toEqual(expected);
    expect((await api.get(`/requests/${request.id}/documents`)).json()).toEqual([expected]);
    expect((await api.get(`/requests/${request.id}/items/${request.items[0].id}/documents`)).json()).toEqual([
      expected,
    ]);
    expect((await api.get(`/requests/${request.id}/items/${request.items[0].id}/download`)).json()).toEqual([expected]);
    const download = await api.get(`/documents/${document.id}/download`);
    expect(download.headers['content-type']).toBe('application/octet-stream');
    expect(download.body).toBe('January pay stub');
    const [item] = (await api.get(`/requests/${request.id}/items`)).json();
    expect(item.documents).toEqual([{ id: document.id, name: 'jan.txt', mime: 'text/plain' }]);
  });

  it('should zip every document in a folder per item, with safe and unique entry names', async () => {
    await submit(t, tenant, request.id, request.items[0].id, 'again', 'JAN.txt');
    await submit(t, tenant, request.id, request.items[0].id, 'and again', 'jan.txt');
    await submit(t, tenant, request.id, request.items[1].id, 'escape', '../../etc/passwd');
    await submit(t, tenant, request.id, request.items[2].id, 'dots', '..');
    const response = await api.get(`/requests/${request.id}/download`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe('attachment; filename="Tax documents 2024.zip"');
    const entries = await unzip(response.rawPayload);
    expect(entries).toEqual({
      'Pay_stubs_ 2024/jan.txt': 'January pay stub',
      'Pay_stubs_ 2024/JAN (2).txt': 'again',
      'Pay_stubs_ 2024/jan (3).txt': 'and again',
      'pay_stubs_ 2024 (2)/passwd': 'escape',
      'item/file.txt': 'dots',
    });
  });

  it('should delete one document, then all of a request, with their bytes', async () => {
    const documents = (await api.get(`/requests/${request.id}/documents?limit=100`)).json();
    expect((await api.delete(`/documents/${documents[0].id}`)).statusCode).toBe(204);
    expect((await api.get(`/documents/${documents[0].id}`)).json()).toEqual({ detail: 'Document not found' });
    expect((await api.delete(`/requests/${request.id}/documents`)).statusCode).toBe(204);
    expect((await api.get(`/requests/${request.id}/documents`)).json()).toEqual([]);
    const [{ n }] = await t.orm.em.fork().getConnection().execute('select count(*)::int as n from stored_file');
    expect(n).toBe(0);
    expect(storedObjects(t)).toEqual([]);
  });

  it("should answer 404 for another organization's request and documents", async () => {
    const document = await submit(t, tenant, request.id, request.items[0].id, 'private', 'private.txt');
    const stranger = client(t.app, (await createTenant(t.db)).apiKey);
    for (const path of [
      `/documents/${document.id}`,
      `/documents/${document.id}/download`,
      `/requests/${request.id}/documents`,
      `/requests/${request.id}/download`,
      `/requests/${request.id}/items/${request.items[0].id}/download`,
      `/requests/${request.id}/items/${request.items[0].id}/documents`,
    ]) {
      expect((await stranger.get(path)).statusCode).toBe(404);
    }
    expect((await stranger.delete(`/documents/${document.id}`)).statusCode).toBe(404);
    expect((await stranger.delete(`/requests/${request.id}/documents`)).json()).toEqual({
      detail: 'Request not found',
    });
    expect((await api.get(`/documents/${UNKNOWN_ID}/download`)).json()).toEqual({ detail: 'Document not found' });
  });
});
