import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { signedIn, tusClient, unfinishedUploads, type SignedIn } from '../../support/tus';

// The declared bytes of unfinished resumable uploads, per organization and in all: one larger than a
// limit alone is refused for its size (413), one that others leave no room for waits (429), and a
// refused creation stores nothing, whatever arrives at once.

const KIB = 1024;

describe('unfinished upload bytes', () => {
  let t: TestApp;
  let first: Tenant;
  let second: Tenant;
  let tus: ReturnType<typeof tusClient>;

  beforeAll(async () => {
    t = await createTestApp({
      maxUploadBytes: 64 * KIB,
      unfinishedUploadBytes: { organization: 3 * KIB, total: 5 * KIB },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    tus = tusClient(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
    first = await createTenant(t.db);
    second = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const stored = () => readdir(join(t.config.dataDir, 'uploads'));
  const unfinished = async (...links: SignedIn[]) =>
    (await Promise.all(links.map((link) => unfinishedUploads(t.db, link.token)))).reduce((a, b) => a + b, 0);
  /** Cancels the uploads `answers` began. */
  const cancel = (link: SignedIn, ...answers: { headers: { location?: unknown } }[]) =>
    Promise.all(answers.map((answer) => tus.send('DELETE', String(answer.headers.location), link.auth)));

  it('should refuse an upload larger than the bytes allowed at once for its size, storing nothing', async () => {
    const link = await signedIn(t.app, first.apiKey);
    const before = await stored();
    const made = await tus.create(link, 3 * KIB + 1);
    expect(made.status).toBe(413);
    expect(made.body).toBe('Upload-Length is more than the 3072 bytes of unfinished uploads allowed at once\n');
    expect(await stored()).toEqual(before);
    expect(await unfinished(link)).toBe(0);
  });

  it("should make an upload wait while others fill its organization's bytes, or all bytes", async () => {
    const a = await signedIn(t.app, first.apiKey);
    const b = await signedIn(t.app, second.apiKey);
    const held = [await tus.create(a, 2 * KIB), await tus.create(a, KIB)];
    expect(held.map((answer) => answer.status)).toEqual([201, 201]);
    const before = await stored();

    const overOrganization = await tus.create(a, 1);
    expect(overOrganization.status).toBe(429);
    expect(overOrganization.body).toBe(
      'Too many unfinished uploads for this organization at the moment; try again later\n',
    );
    // Another organization still has room, up to the total (5 KiB).
    expect((await tus.create(b, 2 * KIB)).status).toBe(201);
    const overTotal = await tus.create(b, 1);
    expect(overTotal.status).toBe(429);
    expect(overTotal.body).toBe('Too many unfinished uploads at the moment; try again later\n');
    expect((await stored()).length).toBe(before.length + 2);
    expect(await unfinished(a, b)).toBe(3);

    // A cancelled upload makes room at once.
    await cancel(a, held[0]);
    expect((await tus.create(b, 1)).status).toBe(201);
    await cancel(a, held[1]);
  });

  it("should take no more than an organization's bytes when creations arrive at once", async () => {
    const links = await Promise.all(Array.from({ length: 5 }, () => signedIn(t.app, first.apiKey)));
    const before = await stored();
    // 50 creations of 100 bytes on five links: 30 fit in 3 KiB (3,072 bytes).
    const answers = await Promise.all(links.flatMap((link) => Array.from({ length: 10 }, () => tus.create(link, 100))));
    const accepted = answers.filter((answer) => answer.status === 201).length;
    expect(accepted).toBe(30);
    expect(new Set(answers.filter((answer) => answer.status !== 201).map((answer) => answer.status))).toEqual(
      new Set([429]),
    );
    expect(await unfinished(...links)).toBe(30);
    expect((await stored()).length - before.length).toBe(60);
  });
});
