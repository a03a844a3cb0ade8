import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createLogger } from '../../../src/kernel/logger';
import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, UNKNOWN_ID } from '../../support/fixtures';
import { storedObjects, submit } from '../../support/documents';
import { signedIn, tokenOf } from '../../support/portal';
import { unzip } from '../../support/zip';

const ANSWERS_HEADER =
  'recipient_id,recipient_name,recipient_email,recipient_phone,item_id,item_name,item_type,item_status,answer,form_name,form_answers';

describe('REST documents', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let request: { id: string; items: Array<{ id: string }> };

  // Error lines only: a missing file must leave one.
  const errors: string[] = [];

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp(
      {},
      { loggerInstance: createLogger('error', { write: (line: string) => void errors.push(line) }) },
    ));
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
      // No item asks for an answer: no rows, the CSV's header only.
      'answers.json': '[]\n',
      'answers.csv': `\uFEFF${ANSWERS_HEADER}\r\n`,
      'Pay_stubs_ 2024/jan.txt': 'January pay stub',
      'Pay_stubs_ 2024/JAN (2).txt': 'again',
      'Pay_stubs_ 2024/jan (3).txt': 'and again',
      'pay_stubs_ 2024 (2)/passwd': 'escape',
      'item/file.txt': 'dots',
    });
  });

  it('should put answers.json and answers.csv at the root: a row per recipient and answering item', async () => {
    const asked = await createRequest(t.app, tenant.apiKey, {
      recipients: [
        { first_name: 'Ana', email: 'ana@example.com' },
        { first_name: 'Bo', email: 'bo@example.com' },
      ],
      items: [
        { type: 'QUESTION', name: 'Employer', question: { type: 'TEXT' } },
        { type: 'UPLOAD', name: 'answers.csv' },
      ],
    });
    const ana = await signedIn(t.app, tokenOf(asked.recipients[0].request_link));
    expect((await ana.answer(asked.items[0].id, 'Acme, "Inc"')).statusCode).toBe(200);
    const response = await api.get(`/requests/${asked.id}/download`);
    expect(response.statusCode).toBe(200);
    const entries = await unzip(response.rawPayload);
    expect(Object.keys(entries)).toEqual(['answers.json', 'answers.csv']);
    const [first, second] = asked.recipients.map((r: { recipient: { id: string } }) => r.recipient);
    const row = (recipient: { id: string }, name: string, email: string) => ({
      recipient: { id: recipient.id, name, email, phone: null },
      item: { id: asked.items[0].id, name: 'Employer', type: 'QUESTION', status: 'COMPLETE' },
      answer: 'Acme, "Inc"',
      form: null,
    });
    expect(JSON.parse(entries['answers.json'])).toEqual([
      row(first, 'Ana', 'ana@example.com'),
      row(second, 'Bo', 'bo@example.com'),
    ]);
    expect(entries['answers.csv'].split('\r\n')).toEqual([
      `\uFEFF${ANSWERS_HEADER}`,
      `${first.id},Ana,ana@example.com,,${asked.items[0].id},Employer,QUESTION,COMPLETE,"Acme, ""Inc""",,`,
      `${second.id},Bo,bo@example.com,,${asked.items[0].id},Employer,QUESTION,COMPLETE,"Acme, ""Inc""",,`,
      '',
    ]);
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

  it('should answer 410 for a document whose stored file is absent, and log it as an error', async () => {
    const document = await submit(t, tenant, request.id, request.items[0].id, 'lost', 'lost.txt');
    const [{ storage_key }] = await t.orm.em
      .fork()
      .getConnection()
      .execute('select f.storage_key from document d join stored_file f on f.id = d.file_id where d.id = ?', [
        document.id,
      ]);
    // As on an instance that does not share the others' files.
    rmSync(storedObjects(t).find((path) => path.endsWith(storage_key))!);
    errors.length = 0;
    const response = await api.get(`/documents/${document.id}/download`);
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ detail: 'The file is no longer stored' });
    expect(errors.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'a stored file is missing',
        key: storage_key,
        err: expect.objectContaining({ message: expect.stringContaining('ENOENT') }),
      }),
    ]);
  });
});
