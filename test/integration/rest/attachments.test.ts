import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createUser, UNKNOWN_ID } from '../../support/fixtures';
import { storedObjects } from '../../support/documents';
import { pdfBytes, upload } from '../../support/files';

describe('REST attachments', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp({ maxUploadBytes: 64 * 1024, maxFilesPerItem: 2 }));
  });
  afterAll(() => t.close());

  describe('POST /attachments', () => {
    it('should store the file and answer the attachment with the type detected from its content', async () => {
      const response = await upload(t.app, tenant.apiKey, '/attachments', await pdfBytes(), {
        filename: 'C:\\fakepath\\Guide.pdf',
        type: 'text/plain',
      });
      expect(response.statusCode).toBe(200);
      const { id } = response.json();
      expect(response.json()).toEqual({
        id,
        name: 'Guide.pdf',
        size: expect.any(Number),
        mime_type: 'application/pdf',
        creation_date: expect.any(String),
        download_url: `https://gather.test/attachments/${id}/download`,
      });
      const [row] = await t.orm.em
        .fork()
        .getConnection()
        .execute('select size, sha256, mime_type, claimed_mime_type from stored_file');
      expect(row).toMatchObject({
        mime_type: 'application/pdf',
        claimed_mime_type: 'text/plain',
        size: response.json().size,
      });
      expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it('should record plain text as text/plain whatever the claim', async () => {
      const response = await upload(t.app, tenant.apiKey, '/attachments', 'just some notes\n', {
        filename: 'notes.pdf',
        type: 'application/pdf',
      });
      expect(response.json()).toMatchObject({ name: 'notes.pdf', mime_type: 'text/plain', size: 16 });
    });

    it('should answer 413 above MAX_UPLOAD_BYTES and keep neither a row nor an object', async () => {
      const before = storedObjects(t).length;
      const response = await upload(t.app, tenant.apiKey, '/attachments', Buffer.alloc(64 * 1024 + 1, 'a'));
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual({ detail: `File is larger than ${64 * 1024} bytes` });
      expect(storedObjects(t).length).toBe(before);
    });

    it('should answer 415 for a body that is not multipart, and 422 without a part named file', async () => {
      const raw = await api.post('/attachments', 'hello', { 'content-type': 'application/octet-stream' });
      expect(raw.statusCode).toBe(415);
      const wrongPart = await upload(t.app, tenant.apiKey, '/attachments', 'hello', { field: 'document' });
      expect(wrongPart.statusCode).toBe(422);
      expect(wrongPart.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'required' });
      const empty = await upload(t.app, tenant.apiKey, '/attachments', '');
      expect(empty.statusCode).toBe(422);
    });

    it('should keep the JSON body limit for JSON paths', async () => {
      const response = await api.post('/requests', { name: 'x'.repeat(2 * 1024 * 1024) });
      expect(response.statusCode).toBe(413);
    });
  });

  describe('GET /attachments and /attachments/{attachment_id}', () => {
    it("should list the caller's own attachments, newest first, and hide other users' and organizations'", async () => {
      const mine = (await upload(t.app, tenant.apiKey, '/attachments', 'mine', { filename: 'mine.txt' })).json();
      const user = await createUser(t.app, tenant.apiKey, { email: `dan-${Date.now()}@example.com` });
      const theirs = (await upload(t.app, user.apiKey, '/attachments', 'theirs', { filename: 'theirs.txt' })).json();
      const list = (await api.get('/attachments?limit=100')).json();
      expect(list[0].id).toBe(mine.id);
      expect(list.map((a: { id: string }) => a.id)).not.toContain(theirs.id);
      expect((await api.get(`/attachments/${mine.id}`)).json()).toEqual(mine);
      expect((await api.get(`/attachments/${theirs.id}`)).json()).toEqual({ detail: 'Attachment not found' });
      const other = await createTenant(t.db);
      expect((await client(t.app, other.apiKey).get(`/attachments/${mine.id}`)).statusCode).toBe(404);
      expect((await api.get('/attachments/not-a-uuid')).statusCode).toBe(422);
    });
  });

  describe('GET /attachments/{attachment_id}/download', () => {
    it("should send the bytes of the caller's own attachment, and 404 for another user's or organization's", async () => {
      const mine = (
        await upload(t.app, tenant.apiKey, '/attachments', 'Fill in box 3.\n', { filename: 'guide.txt' })
      ).json();
      const download = await api.get(new URL(mine.download_url).pathname);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('application/octet-stream');
      expect(download.headers['content-disposition']).toBe('attachment; filename="guide.txt"');
      expect(download.body).toBe('Fill in box 3.\n');
      const user = await createUser(t.app, tenant.apiKey, { email: `erin-${Date.now()}@example.com` });
      expect((await client(t.app, user.apiKey).get(`/attachments/${mine.id}/download`)).json()).toEqual({
        detail: 'Attachment not found',
      });
      const other = await createTenant(t.db);
      expect((await client(t.app, other.apiKey).get(`/attachments/${mine.id}/download`)).statusCode).toBe(404);
    });
  });

  describe('item attachments', () => {
    let request: { id: string; items: Array<{ id: string }> };
    let base: string;

    beforeAll(async () => {
      request = await createRequest(t.app, tenant.apiKey);
      base = `/requests/${request.id}/items/${request.items[0].id}/attachments`;
    });

    it('should upload, list, get, download and delete', async () => {
      const created = await upload(t.app, tenant.apiKey, base, 'Fill in box 3 only.\n', {
        filename: 'how-to.txt',
        type: 'text/plain',
      });
      expect(created.statusCode).toBe(200);
      const attachment = created.json();
      expect(attachment).toEqual({
        id: expect.any(String),
        name: 'how-to.txt',
        size: 20,
        mime_type: 'text/plain',
        creation_date: expect.any(String),
        download_url: `https://gather.test${base}/${attachment.id}/download`,
      });
      expect((await api.get(base)).json()).toEqual([attachment]);
      expect((await api.get(`${base}/${attachment.id}`)).json()).toEqual(attachment);

      const download = await api.get(`${base}/${attachment.id}/download`);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('application/octet-stream');
      expect(download.headers['content-disposition']).toBe('attachment; filename="how-to.txt"');
      expect(download.body).toBe('Fill in box 3 only.\n');

      const items = (await api.get(`/requests/${request.id}/items`)).json();
      expect(items[0].attachments).toEqual([{ id: attachment.id, name: 'how-to.txt', mime: 'text/plain' }]);

      expect((await api.delete(`${base}/${attachment.id}`)).statusCode).toBe(204);
      expect((await api.get(`${base}/${attachment.id}`)).statusCode).toBe(404);
      expect((await api.delete(`${base}/${attachment.id}`)).json()).toEqual({ detail: 'Attachment not found' });
    });

    it('should encode a name that is not ASCII in the Content-Disposition header', async () => {
      const attachment = (await upload(t.app, tenant.apiKey, base, 'x', { filename: 'отчёт 5%.txt' })).json();
      const download = await api.get(`${base}/${attachment.id}/download`);
      expect(download.headers['content-disposition']).toBe(
        `attachment; filename="????? 5%.txt"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82%205%25.txt`,
      );
      await api.delete(`${base}/${attachment.id}`);
    });

    it('should refuse more than MAX_FILES_PER_ITEM attachments with 422 too_many, before reading the file', async () => {
      const other = `/requests/${request.id}/items/${request.items[1].id}/attachments`;
      for (let i = 0; i < 2; i++) expect((await upload(t.app, tenant.apiKey, other, `file ${i}`)).statusCode).toBe(200);
      const before = storedObjects(t).length;
      const response = await upload(t.app, tenant.apiKey, other, 'one too many');
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'too_many' });
      expect(storedObjects(t).length).toBe(before);
    });

    it('should answer 404 for an unknown request or item, or another organization', async () => {
      expect(
        (
          await upload(t.app, tenant.apiKey, `/requests/${UNKNOWN_ID}/items/${request.items[0].id}/attachments`, 'x')
        ).json(),
      ).toEqual({ detail: 'Item not found' });
      expect((await api.get(`/requests/${request.id}/items/${UNKNOWN_ID}/attachments`)).json()).toEqual({
        detail: 'Item not found',
      });
      const other = await createTenant(t.db);
      const stranger = client(t.app, other.apiKey);
      const attachment = (await upload(t.app, tenant.apiKey, base, 'secret')).json();
      expect((await stranger.get(base)).statusCode).toBe(404);
      expect((await stranger.get(`${base}/${attachment.id}/download`)).statusCode).toBe(404);
      expect((await stranger.delete(`${base}/${attachment.id}`)).statusCode).toBe(404);
      expect((await upload(t.app, other.apiKey, base, 'x')).statusCode).toBe(404);
      await api.delete(`${base}/${attachment.id}`);
    });
  });

  describe('attachments referenced at request creation', () => {
    it('should copy library attachments onto the request and its items, sharing the bytes', async () => {
      const guide = (
        await upload(t.app, tenant.apiKey, '/attachments', await pdfBytes(), { filename: 'guide.pdf' })
      ).json();
      const request = await createRequest(t.app, tenant.apiKey, {
        attachments: [guide.id],
        items: [{ type: 'UPLOAD', name: 'W-2', attachments: [guide.id] }],
      });
      expect(request.attachments).toEqual([{ id: expect.any(String), name: 'guide.pdf', mime: 'application/pdf' }]);
      // The creation reads the copies it wrote in its transaction: a fresh read shows the same.
      expect((await api.get(`/requests/${request.id}`)).json()).toEqual(request);
      const [item] = (await api.get(`/requests/${request.id}/items`)).json();
      expect(item.attachments).toEqual([{ id: expect.any(String), name: 'guide.pdf', mime: 'application/pdf' }]);
      const copy = item.attachments[0].id;
      expect(copy).not.toBe(guide.id);
      const download = await api.get(`/requests/${request.id}/items/${item.id}/attachments/${copy}/download`);
      expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

      // Deleting the item drops its copy; the library keeps the file and its bytes.
      expect((await api.delete(`/requests/${request.id}/items/${item.id}`)).statusCode).toBe(204);
      const rows = await t.orm.em
        .fork()
        .getConnection()
        .execute(
          'select count(*)::int as n from attachment where file_id = (select file_id from attachment where id = ?)',
          [guide.id],
        );
      expect(rows[0].n).toBe(2);
      expect((await api.get(`/attachments/${guide.id}`)).statusCode).toBe(200);
    });

    it('should answer 422 for an id that names no attachment of the caller', async () => {
      const user = await createUser(t.app, tenant.apiKey, { email: `eve-${Date.now()}@example.com` });
      const theirs = (await upload(t.app, user.apiKey, '/attachments', 'theirs')).json();
      const response = await api.post('/requests', {
        name: 'x',
        recipients: [{ email: 'ana@example.com' }],
        attachments: [UNKNOWN_ID],
        items: [{ type: 'UPLOAD', name: 'W-2', attachments: [theirs.id] }],
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ['body', 'attachment_ids', 0], msg: 'Names no attachment of yours', type: 'not_found' },
        { loc: ['body', 'items', 0, 'attachment_ids', 0], msg: 'Names no attachment of yours', type: 'not_found' },
      ]);
    });
  });
});
