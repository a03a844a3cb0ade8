import { createTenant, createTestApp, type TestApp } from '../../support/app';
import { requestWithLink, signedIn } from '../../support/portal';

// A recipient's upload past the limits is refused with its own status, and leaves nothing behind:
// no document, no stored file, no event.

describe('recipient upload limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ maxUploadBytes: 1000 });
  });
  afterAll(() => t.close());

  it('should refuse an empty file (422) and a file over MAX_UPLOAD_BYTES (413), storing nothing', async () => {
    const tenant = await createTenant(t.db);
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    const empty = await p.upload(items[0].id, Buffer.alloc(0));
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].msg).toMatch(/empty/);
    expect((await p.upload(items[0].id, Buffer.alloc(5000, 1))).statusCode).toBe(413);
    expect((await p.request()).json().items[0]).toMatchObject({ status: 'INCOMPLETE', documents: [] });
    const em = t.orm.em.fork();
    expect(await em.count('StoredFile', {})).toBe(0);
    const topics = await em.execute<{ topic: string }[]>('select topic from event where request_id = ?', [request.id]);
    expect(topics.map((e) => e.topic)).toEqual(['request.created']);
  });
});
