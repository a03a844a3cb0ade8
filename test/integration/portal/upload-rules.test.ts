import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { pdfBytes, PNG } from '../../support/files';
import { requestWithLink, signedIn } from '../../support/portal';
import { meta, tusClient } from '../../support/tus';
import { unzip } from '../../support/zip';

// What an UPLOAD item accepts: its types (on the bytes), its largest file and its fewest and most
// files, set on requests and templates, held to on the multipart path and on tus with a 422 that
// keeps nothing, and on submission.

const RULES = { accept: ['.pdf', 'image/jpeg'], max_file_bytes: 4000, min_files: 2, max_files: 3 };

describe('upload rules', () => {
  let t: TestApp;
  let tenant: Tenant;
  let send: ReturnType<typeof tusClient>['send'];

  beforeAll(async () => {
    t = await createTestApp({ maxUploadBytes: 1024 * 1024 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    ({ send } = tusClient(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`));
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const storedFiles = async () => (await t.db.rows<{ n: number }>('select count(*)::int as n from stored_file'))[0].n;

  /** A request whose upload item has RULES, and a signed-in recipient of it. */
  async function ruled(rules: Record<string, unknown> = RULES) {
    const link = await requestWithLink(t.app, tenant.apiKey, {
      items: [{ type: 'UPLOAD', name: 'Passport', required: true, upload_rules: rules }],
    });
    return { ...link, item: link.items[0].id, p: await signedIn(t.app, link.token) };
  }

  it('should show the rules in REST, GraphQL and the recipient API', async () => {
    const { request, item, p } = await ruled({ ...RULES, file_name_pattern: '{item_name} {n}' });
    const expected = { ...RULES, file_name_pattern: '{item_name} {n}' };
    expect(request.items[0].upload_rules).toEqual(expected);
    const mine = (await p.request()).json();
    expect(mine.items[0].upload_rules).toEqual(expected);
    const graphql = await client(t.app, tenant.apiKey).graphql(
      `query ($id: ID!) { node(id: $id) { ... on UploadItem { uploadRules { accept maxFileBytes minFiles maxFiles fileNamePattern } } } }`,
      { id: item },
    );
    expect(graphql.data.node.uploadRules).toEqual({
      accept: RULES.accept,
      maxFileBytes: 4000,
      minFiles: 2,
      maxFiles: 3,
      fileNamePattern: '{item_name} {n}',
    });
  });

  it('should refuse rules that cannot hold, at their fields', async () => {
    const response = await client(t.app, tenant.apiKey).post('/requests', {
      name: 'Bad rules',
      items: [
        {
          type: 'UPLOAD',
          name: 'Scan',
          upload_rules: {
            accept: ['pdf'],
            max_file_bytes: 2 * 1024 * 1024,
            min_files: 4,
            max_files: 2,
            file_name_pattern: '{client}',
          },
        },
      ],
      recipients: [{ email: 'ana@example.com', auth_method: { type: 'NONE' } }],
    });
    expect(response.statusCode).toBe(422);
    const fields = JSON.stringify(response.json());
    for (const field of ['accept', 'max_file_bytes', 'min_files', 'file_name_pattern']) expect(fields).toContain(field);
  });

  it('should refuse on the multipart path a file whose name says .pdf but whose bytes are a PNG, keeping nothing', async () => {
    const { item, p } = await ruled();
    const before = await storedFiles();
    const refused = await p.upload(item, PNG, 'passport.pdf');
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('image/png');
    expect(refused.body).toContain('.pdf, image/jpeg');
    expect(await storedFiles()).toBe(before);
    expect((await p.upload(item, await pdfBytes(), 'passport.pdf')).statusCode).toBe(200);
  });

  it('should refuse a file over the largest, and a file past the most, with a 422', async () => {
    const { item, p } = await ruled();
    const big = Buffer.concat([await pdfBytes(), Buffer.alloc(5000)]);
    const before = await storedFiles();
    const tooBig = await p.upload(item, big, 'big.pdf');
    expect(tooBig.statusCode).toBe(422);
    expect(tooBig.body).toContain('at most 4000 bytes');
    expect(await storedFiles()).toBe(before);
    for (let i = 0; i < 3; i++)
      expect((await p.upload(item, await pdfBytes(`p${i}`), `p${i}.pdf`)).statusCode).toBe(200);
    const fourth = await p.upload(item, await pdfBytes('p3'), 'p3.pdf');
    expect(fourth.statusCode).toBe(422);
    expect(fourth.body).toContain('at most 3 files');
  });

  it('should refuse the submission while an item has fewer files than its least', async () => {
    const { item, p } = await ruled();
    expect((await p.upload(item, await pdfBytes('one'), 'one.pdf')).statusCode).toBe(200);
    const early = await p.submit();
    expect(early.statusCode).toBe(422);
    expect(early.body).toContain('Passport (at least 2)');
    expect((await p.upload(item, await pdfBytes('two'), 'two.pdf')).statusCode).toBe(200);
    expect((await p.submit()).statusCode).toBe(200);
  });

  it('should refuse on tus an Upload-Length over the largest file, and PNG bytes named .pdf when they arrive', async () => {
    const { token, item, p } = await ruled();
    const auth = { authorization: `Bearer ${p.session}` };
    const create = (length: number, filename: string) =>
      send('POST', `/r/${token}/api/uploads`, {
        ...auth,
        'upload-length': String(length),
        'upload-metadata': meta({ item_id: item, filename }),
      });
    const tooBig = await create(5000, 'big.pdf');
    expect(tooBig.status).toBe(422);
    expect(tooBig.body).toContain('at most 4000 bytes');

    const before = await storedFiles();
    const made = await create(PNG.length, 'passport.pdf');
    expect(made.status).toBe(201);
    const sent = await send(
      'PATCH',
      String(made.headers.location),
      { ...auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      PNG,
    );
    expect(sent.status).toBe(422);
    expect(sent.body).toContain('image/png');
    expect(await storedFiles()).toBe(before);
    expect((await send('HEAD', String(made.headers.location), auth)).status).toBe(404);
  });

  it('should carry a template item rules into the requests made from it', async () => {
    const api = client(t.app, tenant.apiKey);
    const template = await api.post('/templates', {
      name: 'Identity',
      items: [{ type: 'UPLOAD', name: 'Passport', upload_rules: RULES }],
    });
    expect(template.statusCode).toBe(200);
    expect(template.json().items[0].upload_rules).toEqual({ ...RULES, file_name_pattern: null });
    const { request } = await requestWithLink(t.app, tenant.apiKey, {
      items: undefined,
      template_id: template.json().id,
    });
    expect(request.items[0].upload_rules).toEqual({ ...RULES, file_name_pattern: null });
  });

  it('should name files by the pattern in the download and the zip, keeping the uploaded name in the API', async () => {
    const { request, item, p } = await ruled({
      accept: ['.pdf'],
      file_name_pattern: '{recipient_last_name}: {item_name} {n}',
    });
    expect((await p.upload(item, await pdfBytes('a'), 'scan-a.pdf')).statusCode).toBe(200);
    expect((await p.upload(item, await pdfBytes('b'), 'scan-b.PDF')).statusCode).toBe(200);
    const api = client(t.app, tenant.apiKey);
    const documents = (await api.get(`/requests/${request.id}/items/${item}/documents`)).json();
    expect(documents.map((d: { name: string }) => d.name)).toEqual(['scan-a.pdf', 'scan-b.PDF']);
    const second = await api.get(`/documents/${documents[1].id}/download`);
    // The colon is no character of a portable name.
    expect(second.headers['content-disposition']).toBe('attachment; filename="Diaz_ Passport 2.PDF"');
    const zip = await unzip((await api.get(`/requests/${request.id}/download`)).rawPayload);
    expect(Object.keys(zip).filter((name) => name.startsWith('Passport/'))).toEqual([
      'Passport/Diaz_ Passport 1.pdf',
      'Passport/Diaz_ Passport 2.PDF',
    ]);
  });

  it('should change and clear the rules of an item, and refuse them on another kind', async () => {
    const { request, item } = await ruled();
    const api = client(t.app, tenant.apiKey);
    const url = `/requests/${request.id}/items/${item}`;
    const changed = await api.patch(url, { upload_rules: { accept: ['image/*'], max_files: 1 } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().upload_rules).toEqual({
      accept: ['image/*'],
      max_file_bytes: null,
      min_files: null,
      max_files: 1,
      file_name_pattern: null,
    });
    expect((await api.patch(url, { upload_rules: { min_files: 2, max_files: 1 } })).statusCode).toBe(422);
    expect((await api.patch(url, { upload_rules: null })).json().upload_rules).toBeNull();
  });

  it('should refuse a tus upload as soon as its first bytes show a type the item does not accept', async () => {
    const { token, item, p } = await ruled({ accept: ['.pdf'] });
    const auth = { authorization: `Bearer ${p.session}` };
    const bytes = Buffer.concat([PNG, Buffer.alloc(100 * 1024)]);
    const made = await send('POST', `/r/${token}/api/uploads`, {
      ...auth,
      'upload-length': String(bytes.length),
      'upload-metadata': meta({ item_id: item, filename: 'scan.pdf' }),
    });
    const location = String(made.headers.location);
    const patch = (offset: number, end: number) =>
      send(
        'PATCH',
        location,
        { ...auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
        bytes.subarray(offset, end),
      );
    expect((await patch(0, 70 * 1024)).status).toBe(204);
    const refused = await patch(70 * 1024, 80 * 1024);
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('image/png');
    expect((await send('HEAD', location, auth)).status).toBe(404);
  });
});
