import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { meta, signedIn as signedInAs, tusClient, unfinishedUploads } from '../../support/tus';

// Resumable uploads (tus 1.0) on /r/{token}/api/uploads: an upload whose connection drops goes on from
// the offset the server reports, and the finished file becomes the item's document, byte for byte.

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('resumable uploads', () => {
  let t: TestApp;
  let tenant: Tenant;
  let send: ReturnType<typeof tusClient>['send'];

  beforeAll(async () => {
    t = await createTestApp({ maxUploadBytes: 4 * 1024 * 1024 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    ({ send } = tusClient(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`));
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  /** What the upload store holds: unfinished uploads and their descriptions. */
  const stored = () => readdir(join(t.config.dataDir, 'uploads'));

  const unfinished = (token: string) => unfinishedUploads(t.db, token);
  const signedIn = () => signedInAs(t.app, tenant.apiKey);

  it('should go on from the offset the server reports after a dropped connection, and keep the whole file', async () => {
    const { created, token, auth, upload } = await signedIn();
    const bytes = randomBytes(1024 * 1024 + 123);
    const made = await send('POST', `/r/${token}/api/uploads`, {
      ...auth,
      'upload-length': String(bytes.length),
      'upload-metadata': meta({ item_id: upload, filename: 'scan.pdf', filetype: 'application/pdf' }),
    });
    expect(made.status).toBe(201);
    const location = String(made.headers.location);
    expect(location).toMatch(new RegExp(`^/r/${token}/api/uploads/[0-9a-f]{48}$`));

    const dropped = await send(
      'PATCH',
      location,
      { ...auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      bytes,
      600 * 1024,
    );
    expect(dropped.status).toBe(0);
    const head = await send('HEAD', location, auth);
    expect(head.status).toBe(200);
    const offset = Number(head.headers['upload-offset']);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(600 * 1024);

    const rest = await send(
      'PATCH',
      location,
      { ...auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
      bytes.subarray(offset),
    );
    expect(rest.status).toBe(204);
    const documents = await client(t.app, tenant.apiKey).get(`/requests/${created.id}/items/${upload}/documents`);
    expect(documents.json()).toEqual([expect.objectContaining({ name: 'scan.pdf' })]);
    const stored = await client(t.app, tenant.apiKey).get(`/documents/${documents.json()[0].id}/download`);
    expect(sha256(stored.rawPayload)).toBe(sha256(bytes));
    // Finished uploads leave nothing behind to resume, nor count as unfinished.
    expect((await send('HEAD', location, auth)).status).toBe(404);
    expect(await unfinished(token)).toBe(0);
  });

  it('should refuse uploads without a session, to another item kind or item, and over the size limit', async () => {
    const { token, auth, upload, question } = await signedIn();
    const create = (headers: Record<string, string>, metadata: Record<string, string>, length = 10) =>
      send('POST', `/r/${token}/api/uploads`, {
        ...headers,
        'upload-length': String(length),
        'upload-metadata': meta(metadata),
      });
    expect((await create({}, { item_id: upload, filename: 'a.pdf' })).status).toBe(401);
    expect((await create(auth, { item_id: question, filename: 'a.pdf' })).status).toBe(422);
    expect((await create(auth, { item_id: '00000000-0000-4000-8000-000000000000', filename: 'a.pdf' })).status).toBe(
      404,
    );
    expect((await create(auth, { item_id: upload })).status).toBe(400);
    expect((await create(auth, { item_id: upload, filename: 'big.bin' }, 4 * 1024 * 1024 + 1)).status).toBe(413);
  });

  it('should refuse an upload of deferred length, storing nothing', async () => {
    const { token, auth, upload } = await signedIn();
    const before = await stored();
    const made = await send('POST', `/r/${token}/api/uploads`, {
      ...auth,
      'upload-defer-length': '1',
      'upload-metadata': meta({ item_id: upload, filename: 'a.pdf' }),
    });
    expect(made.status).toBe(400);
    expect(made.body).toBe('Upload-Length is required: uploads of deferred length are not taken\n');
    expect(made.headers.location).toBeUndefined();
    expect(await stored()).toEqual(before);
    expect(await unfinished(token)).toBe(0);
  });

  it('should take at most 20 unfinished uploads on a link, however many creates arrive at once', async () => {
    const { token, auth, upload } = await signedIn();
    const before = await stored();
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        send('POST', `/r/${token}/api/uploads`, {
          ...auth,
          'upload-length': '10',
          'upload-metadata': meta({ item_id: upload, filename: `${i}.txt` }),
        }),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(accepted.length).toBe(20);
    expect(new Set(refused.map((answer) => `${answer.status} ${answer.body}`))).toEqual(
      new Set(['429 At most 20 unfinished uploads per link; finish or cancel one first\n']),
    );
    // Each accepted upload is a file, its description and its row; the refused ones left nothing.
    const added = (await stored()).filter((name) => !before.includes(name));
    expect(added.length).toBe(40);
    expect(await unfinished(token)).toBe(20);
    // A cancelled upload gives its place back.
    expect((await send('DELETE', String(accepted[0].headers.location), auth)).status).toBe(204);
    expect(await unfinished(token)).toBe(19);
    const again = await send('POST', `/r/${token}/api/uploads`, {
      ...auth,
      'upload-length': '10',
      'upload-metadata': meta({ item_id: upload, filename: 'again.txt' }),
    });
    expect(again.status).toBe(201);
  });

  it('should give back the place of a creation the store failed to make', async () => {
    const { token, auth, upload } = await signedIn();
    // A file where the store's directory was (a broken disk): the upload cannot be made.
    const directory = join(t.config.dataDir, 'uploads');
    await rm(directory, { recursive: true });
    await writeFile(directory, '');
    try {
      const made = await send('POST', `/r/${token}/api/uploads`, {
        ...auth,
        'upload-length': '10',
        'upload-metadata': meta({ item_id: upload, filename: 'a.txt' }),
      });
      expect(made.status).toBe(500);
      expect(await unfinished(token)).toBe(0);
    } finally {
      await rm(directory);
      await mkdir(directory);
    }
  });

  it("should not let one link touch another link's upload", async () => {
    const first = await signedIn();
    const second = await signedIn();
    const made = await send('POST', `/r/${first.token}/api/uploads`, {
      ...first.auth,
      'upload-length': '10',
      'upload-metadata': meta({ item_id: first.upload, filename: 'a.txt' }),
    });
    const id = String(made.headers.location).split('/').pop();
    expect((await send('HEAD', `/r/${second.token}/api/uploads/${id}`, second.auth)).status).toBe(404);
    // Nor does another recipient's session open it under its own link.
    expect((await send('HEAD', `/r/${first.token}/api/uploads/${id}`, second.auth)).status).toBe(401);
  });
});
