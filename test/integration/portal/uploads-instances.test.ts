import { CreateBucketCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import type { StorageConfig } from '../../../src/config/config';
import { createS3Client } from '../../../src/kernel/storage/s3';
import { client, createTenant, createTestApp, testLog, type Tenant, type TestApp } from '../../support/app';
import { signedIn, tusClient, unfinishedUploads } from '../../support/tus';

// Two instances on one database with S3 storage: unfinished uploads live in the bucket and their locks
// in PostgreSQL, so an upload begun on one instance goes on on the other, and a request on one takes the
// upload from a stalled request on the other. The bucket is moto's S3 server on loopback (`moto_server`,
// Python moto[server], on PATH): @tus/s3-store lists a multipart upload's parts, which s3rver does not do.

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** A free loopback port. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** moto's S3 server on `port`, once it answers. */
async function startMoto(port: number): Promise<ChildProcess> {
  const moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => moto.once('error', reject));
  for (let tries = 0; tries < 300; tries++) {
    const up = await Promise.race([
      failed,
      fetch(`http://127.0.0.1:${port}/`).then(
        (response) => response.ok,
        () => false,
      ),
    ]);
    if (up) return moto;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  moto.kill();
  throw new Error('moto_server did not answer within 30 s');
}

const octets = (offset: number) => ({
  'content-type': 'application/offset+octet-stream',
  'upload-offset': `${offset}`,
});

// The machines this runs on have moto in their Python; elsewhere the test says why it did not run.
const withMoto = spawnSync('moto_server', ['--help']).error ? describe.skip : describe;
if (withMoto === describe.skip)
  process.stderr.write('uploads-instances: moto_server is not on PATH (pip install "moto[server]")\n');

withMoto('resumable uploads across instances', () => {
  let moto: ChildProcess | undefined;
  let storage: Extract<StorageConfig, { driver: 's3' }>;
  /** The test's own view of the bucket. */
  let s3: S3Client | undefined;
  let a: TestApp;
  let b: TestApp;
  let tenant: Tenant;
  const base = (t: TestApp) => `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

  beforeAll(async () => {
    const port = await freePort();
    moto = await startMoto(port);
    storage = {
      driver: 's3',
      bucket: 'gather-files',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      forcePathStyle: true,
    };
    s3 = createS3Client({ ...storage, log: testLog });
    await s3.send(new CreateBucketCommand({ Bucket: storage.bucket }));
    // Both before any row: each empties the database as it starts.
    a = await createTestApp({ maxUploadBytes: 8 * 1024 * 1024, storage });
    b = await createTestApp({ maxUploadBytes: 8 * 1024 * 1024, storage });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(a.db);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    s3?.destroy();
    moto?.kill();
  });

  const objects = async () =>
    ((await s3!.send(new ListObjectsV2Command({ Bucket: storage.bucket }))).Contents ?? []).map(
      (object) => object.Key!,
    );

  it('should go on on instance B with an upload begun on instance A', async () => {
    const link = await signedIn(a.app, tenant.apiKey);
    const onA = tusClient(base(a));
    const onB = tusClient(base(b));
    const bytes = randomBytes(1024 * 1024 + 321);
    const made = await onA.create(link, bytes.length, 'scan.pdf');
    expect(made.status).toBe(201);
    const location = String(made.headers.location);
    const id = location.split('/').pop()!;

    const first = await onA.send('PATCH', location, { ...link.auth, ...octets(0) }, bytes.subarray(0, 400 * 1024));
    expect(first.status).toBe(204);
    // Below S3's smallest part (5 MiB) the bytes wait in the bucket as `<id>.part`, beside `<id>.info`.
    expect((await objects()).filter((key) => key.startsWith(id)).sort()).toEqual([`${id}.info`, `${id}.part`]);

    const head = await onB.send('HEAD', location, link.auth);
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe(String(400 * 1024));
    const rest = await onB.send('PATCH', location, { ...link.auth, ...octets(400 * 1024) }, bytes.subarray(400 * 1024));
    expect(rest.status).toBe(204);

    const api = client(b.app, tenant.apiKey);
    const documents = await api.get(`/requests/${link.created.id}/items/${link.upload}/documents`);
    expect(documents.json()).toEqual([expect.objectContaining({ name: 'scan.pdf' })]);
    const stored = await api.get(`/documents/${documents.json()[0].id}/download`);
    expect(sha256(stored.rawPayload)).toBe(sha256(bytes));
    // The unfinished upload left the bucket and the count.
    expect((await objects()).filter((key) => key.startsWith(id))).toEqual([]);
    expect(await unfinishedUploads(a.db, link.token)).toBe(0);
    expect((await onA.send('HEAD', location, link.auth)).status).toBe(404);
  });

  it('should take an upload from a stalled request on the other instance', async () => {
    const link = await signedIn(a.app, tenant.apiKey);
    const made = await tusClient(base(a)).create(link, 1024 * 1024, 'slow.bin');
    const location = String(made.headers.location);
    // A PATCH on A that sends part of its body and then nothing (a phone gone silent): it holds the lock.
    const stalled = httpRequest(`${base(a)}${location}`, {
      method: 'PATCH',
      headers: { 'tus-resumable': '1.0.0', ...link.auth, ...octets(0), 'content-length': String(1024 * 1024) },
      agent: false,
    });
    const ended = new Promise<number>((resolve) => {
      stalled.on('response', (res) => resolve(res.statusCode!));
      stalled.on('error', () => resolve(0));
    });
    stalled.write(randomBytes(64 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 500));

    try {
      const started = Date.now();
      const head = await tusClient(base(b)).send('HEAD', location, link.auth);
      expect(head.status).toBe(200);
      // B asked A's request to let go (NOTIFY) and had the lock once it had: A's PATCH was ended, not
      // left writing beside B, and B did not wait out tus's 30 s lock timeout.
      expect(Date.now() - started).toBeLessThan(10_000);
      const late = new Promise((resolve) => setTimeout(() => resolve('still writing'), 3000));
      expect(await Promise.race([ended.then(() => 'ended'), late])).toBe('ended');
    } finally {
      stalled.destroy();
    }
  });
});
