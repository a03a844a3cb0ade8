import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// Resumable uploads (tus 1.0) on /r/{token}/api/uploads: an upload whose connection drops goes on from
// the offset the server reports, and the finished file becomes the item's document, byte for byte.

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const meta = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

describe('resumable uploads', () => {
  let t: TestApp;
  let tenant: Tenant;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({ maxUploadBytes: 4 * 1024 * 1024 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  /** One HTTP request on its own connection; `dropAfter` bytes of the body are sent, then the socket is destroyed. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
    dropAfter?: number,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { method, headers: { 'tus-resumable': '1.0.0', connection: 'close', ...headers }, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
            );
        },
      );
      if (dropAfter === undefined) {
        req.on('error', reject);
        req.end(body);
        return;
      }
      // The client's network goes: part of the body is on the wire, then the connection breaks.
      req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
      req.write(body!.subarray(0, dropAfter), () => setTimeout(() => req.destroy(), 100));
    });
  }

  /** A request with one upload item and one question, and a signed-in session of its recipient. */
  async function signedIn() {
    const created = await createRequest(t.app, tenant.apiKey);
    const token = new URL(created.recipients[0].request_link).pathname.split('/')[2];
    const session = await t.app.inject({ method: 'POST', url: `/r/${token}/api/session`, payload: {} });
    expect(session.statusCode).toBe(200);
    const auth = { authorization: `Bearer ${session.json().session_token}` };
    return { created, token, auth, upload: created.items[0].id as string, question: created.items[1].id as string };
  }

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
    // Finished uploads leave nothing behind to resume.
    expect((await send('HEAD', location, auth)).status).toBe(404);
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
