import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { createStorage } from '../../src/kernel/storage';
import {
  createTenant,
  createTestApp,
  TEST_SECRET,
  testLog,
  workerDatabaseUrl,
  type TestApp,
  type Tenant,
} from '../support/app';
import { storedObjects } from '../support/documents';
import { createRequest } from '../support/fixtures';
import { pdfBytes, upload } from '../support/files';
import { scratchDir, startService } from '../support/service';

const MB = 1024 * 1024;
const run = promisify(execFile);

async function waitFor(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function countRows(t: TestApp): Promise<number> {
  const [{ n }] = await t.orm.em.fork().getConnection().execute('select count(*)::int as n from stored_file');
  return n;
}

describe('Files over real HTTP (local storage)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it('should stream a 200 MB upload and download with the service process growing by less than 100 MB of RSS', async () => {
    // The service in a process of its own, as `npm start` runs it, and the client in another
    // (test/support/stream-client.ts): measured inside this jest worker, the figure carried whatever
    // earlier test files had left in its heap (34 to 111 MB in whole suites, 31 to 38 alone).
    const dataDir = scratchDir('gather-stream-');
    const service = await startService({
      DATABASE_URL: workerDatabaseUrl(),
      GATHER_SECRET: TEST_SECRET,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.process.pid}/status`, 'utf8'))![1]) * 1024;
    let result: {
      uploadStatus: number;
      attachment: { size: number };
      downloadStatus: number;
      contentLength: string;
      sent: string;
      received: string;
    };
    let baseline: number;
    let peak: number;
    try {
      const request = await createRequest(t.app, tenant.apiKey);
      const path = `/requests/${request.id}/items/${request.items[0].id}/attachments`;
      baseline = rss();
      peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
      try {
        const { stdout } = await run(
          process.execPath,
          [
            '--import',
            'tsx',
            join(__dirname, '..', 'support', 'stream-client.ts'),
            String(service.port),
            path,
            tenant.apiKey,
            '200',
          ],
          {
            maxBuffer: MB,
          },
        );
        result = JSON.parse(stdout);
      } finally {
        clearInterval(sampler);
      }
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(result.uploadStatus).toBe(200);
    expect(result.attachment.size).toBe(200 * MB);
    expect(result.downloadStatus).toBe(200);
    expect(result.contentLength).toBe(String(200 * MB));
    expect(result.received).toBe(result.sent);
    const growth = (peak - baseline) / MB;
    expect(growth).toBeLessThan(100);
  });

  it('should leave neither a row nor an object when the client aborts an upload mid-stream', async () => {
    const rows = await countRows(t);
    const objects = storedObjects(t).length;
    const head = await pdfBytes();
    for (const [path, headers] of [
      ['/contracts?name=cut.pdf', { 'content-type': 'application/octet-stream' }],
      ['/attachments', { 'content-type': 'multipart/form-data; boundary=cut' }],
    ] as const) {
      await new Promise<void>((resolve) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path,
          headers: { ...headers, authorization: `Bearer ${tenant.apiKey}` },
        });
        req.on('error', () => resolve());
        if (path === '/attachments')
          req.write('--cut\r\nContent-Disposition: form-data; name="file"; filename="cut.pdf"\r\n\r\n');
        req.write(head);
        let written = 0;
        const timer = setInterval(() => {
          req.write(Buffer.alloc(MB, 1));
          if ((written += MB) >= 8 * MB) {
            clearInterval(timer);
            req.destroy();
            resolve();
          }
        }, 5);
      });
      // The server notices the cut connection, fails the upload and removes the partial object.
      await waitFor(() => storedObjects(t).length === objects);
    }
    expect(await countRows(t)).toBe(rows);
  });
});

describe('Files on S3 storage (s3rver on loopback)', () => {
  let dir: string;
  let server: S3rver;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gather-s3-'));
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'gather-files' }],
    });
    const { port } = await server.run();
    const storage = createStorage(
      {
        driver: 's3',
        bucket: 'gather-files',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        forcePathStyle: true,
      },
      testLog,
    );
    t = await createTestApp({ maxUploadBytes: 12 * MB }, { storage });
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should put, get, check and delete objects', async () => {
    const KEY = randomUUID();
    const big = Buffer.alloc(MB + 123, 7);
    const stored = await t.storage.put(KEY, Readable.from([big.subarray(0, 1000), big.subarray(1000)]), {
      maxBytes: 12 * MB,
    });
    expect(stored).toEqual({ size: big.length, sha256: createHash('sha256').update(big).digest('hex') });
    expect(await t.storage.exists(KEY)).toBe(true);
    let length = 0;
    for await (const chunk of await t.storage.get(KEY)) length += (chunk as Buffer).length;
    expect(length).toBe(big.length);
    await t.storage.delete(KEY);
    expect(await t.storage.exists(KEY)).toBe(false);
  });

  it('should leave no object when a put goes past its limit or its source fails', async () => {
    await expect(
      t.storage.put('too-large', Readable.from([Buffer.alloc(9 * MB), Buffer.alloc(9 * MB)]), { maxBytes: 12 * MB }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await t.storage.exists('too-large')).toBe(false);
    async function* failing() {
      yield Buffer.alloc(MB);
      throw new Error('client went away');
    }
    await expect(t.storage.put('failed', Readable.from(failing()), { maxBytes: 12 * MB })).rejects.toThrow(
      'client went away',
    );
    expect(await t.storage.exists('failed')).toBe(false);
  });

  it('should serve the REST upload, download and delete of an item attachment', async () => {
    const request = await createRequest(t.app, tenant.apiKey);
    const path = `/requests/${request.id}/items/${request.items[0].id}/attachments`;
    const attachment = (await upload(t.app, tenant.apiKey, path, await pdfBytes(), { filename: 'on-s3.pdf' })).json();
    const [{ storage_key: key }] = await t.orm.em.fork().getConnection().execute('select storage_key from stored_file');
    expect(await t.storage.exists(key)).toBe(true);
    const download = await t.app.inject({
      method: 'GET',
      url: `${path}/${attachment.id}/download`,
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    await t.app.inject({
      method: 'DELETE',
      url: `${path}/${attachment.id}`,
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    expect(await t.storage.exists(key)).toBe(false);
  });
});
