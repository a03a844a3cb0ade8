import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { createS3Client } from '../../../src/kernel/storage/s3';
import { client, createTenant, createTestApp, testLog, type TestApp, type Tenant } from '../../support/app';
import { createUser, eventually } from '../../support/fixtures';
import { requestWithLink, signedIn } from '../../support/portal';

// Cloud storage destinations against a real S3-compatible server on loopback (s3rver). It knows one
// access key id, S3RVER, and refuses any other; it does not check V4 signatures, so a wrong secret
// key goes unnoticed there (AWS answers SignatureDoesNotMatch, reported the same way).

const BUCKET = 'acme-documents';
const KEYS = { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' };
/** One required item, so that a submission completes the request. */
const ITEMS = [{ type: 'UPLOAD', name: 'W-2', required: true }];

describe('cloud storage destinations (s3rver on loopback)', () => {
  let t: TestApp;
  let acme: Tenant;
  let globex: Tenant;
  let server: S3rver;
  let dir: string;
  let endpoint: string;
  let s3: S3Client;
  let offsetMs = 0;
  const api = () => client(t.app, acme.apiKey);
  const connectBody = (overrides: Record<string, unknown> = {}) => ({
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint,
    ...KEYS,
    ...overrides,
  });
  const runJobs = () => t.app.jobs.runDue();
  const copyJobs = (requestId: string) =>
    t.db.rows<{ status: string; attempts: number; last_error: string | null }>(
      `select status, attempts, last_error from job where request_id = ? and kind = 'CLOUD_COPY' order by created_at`,
      [requestId],
    );
  const listBucket = async (prefix = '') =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? [])
      .map((o) => o.Key!)
      .sort();
  const readObject = async (key: string) =>
    Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());
  const emptyBucket = async () => {
    const keys = await listBucket();
    if (keys.length)
      await s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
  };
  const activity = async (requestId: string) =>
    (
      (await api().get(`/requests/${requestId}/activity?limit=100`)).json() as Array<{
        action: string;
        actor: { type: string };
        details: Record<string, any>;
      }>
    )
      .filter((entry) => entry.action.startsWith('cloud_storage.'))
      .reverse();
  /**
   * A request copied to S3 under `folder`, and what completes it: its recipient uploading one document and submitting.
   */
  const s3Request = async (folder: string | null, bytes: Buffer) => {
    const { request, token, items } = await requestWithLink(t.app, acme.apiKey, {
      items: ITEMS,
      cloud_storage_provider: 'S3',
      cloud_storage_folder: folder,
    });
    const complete = async () => {
      const recipient = await signedIn(t.app, token);
      expect((await recipient.upload(items[0].id, bytes, 'w2.pdf')).statusCode).toBe(200);
      expect((await recipient.submit()).json().state).toBe('COMPLETE_AND_SUBMITTED');
    };
    return { request: request as { id: string }, complete };
  };
  const completedRequest = async (folder: string | null, bytes: Buffer) => {
    const { request, complete } = await s3Request(folder, bytes);
    await complete();
    return request;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gather-cloud-s3-'));
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = createS3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      log: testLog,
    });
    t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    acme = await createTenant(t.db, 'Acme');
    globex = await createTenant(t.db, 'Globex');
  });
  afterAll(async () => {
    s3.destroy();
    await t.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    offsetMs = 0;
  });

  it('should list every provider: SERVICE connected, S3 available, the OAuth ones unavailable with a reason', async () => {
    const response = await api().get('/cloud-storage');
    expect(response.statusCode).toBe(200);
    const byProvider = Object.fromEntries(response.json().map((p: { provider: string }) => [p.provider, p]));
    expect(Object.keys(byProvider)).toEqual([
      'SERVICE',
      'S3',
      'GOOGLE_DRIVE',
      'DROPBOX',
      'BOX',
      'ONEDRIVE',
      'SHAREPOINT',
    ]);
    expect(byProvider.SERVICE).toMatchObject({ status: 'CONNECTED', reason: null });
    expect(byProvider.S3).toEqual({
      provider: 'S3',
      status: 'AVAILABLE',
      reason: null,
      bucket: null,
      region: null,
      endpoint: null,
      force_path_style: null,
      connected_at: null,
    });
    for (const provider of ['GOOGLE_DRIVE', 'DROPBOX', 'BOX', 'ONEDRIVE', 'SHAREPOINT']) {
      expect(byProvider[provider]).toMatchObject({ status: 'UNAVAILABLE', reason: expect.stringContaining('OAuth') });
    }
  });

  it('should refuse with a 422 to connect an OAuth provider or SERVICE, or to disconnect SERVICE', async () => {
    const drive = await api().post('/cloud-storage/GOOGLE_DRIVE', {});
    expect(drive.statusCode).toBe(422);
    expect(drive.json().detail[0].msg).toMatch(
      /^GOOGLE_DRIVE cannot be connected: Google Drive needs an OAuth sign-in/,
    );
    expect((await api().post('/cloud-storage/SERVICE', {})).json().detail[0].msg).toMatch(/always connected/);
    expect((await api().delete('/cloud-storage/SERVICE')).statusCode).toBe(422);
    expect((await api().post('/cloud-storage/NOT_A_PROVIDER', {})).statusCode).toBe(422);
  });

  it('should refuse a request naming S3 while no bucket is connected', async () => {
    const refused = await api().post('/requests', {
      name: 'R',
      items: ITEMS,
      recipients: [{ email: 'ana@example.com' }],
      cloud_storage_provider: 'S3',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail).toEqual([
      {
        loc: ['body', 'cloud_storage_provider'],
        msg: 'No S3 bucket is connected: connect one first (POST /cloud-storage/S3)',
        type: 'invalid',
      },
    ]);
  });

  it('should refuse with a 422 naming the cause: missing fields, wrong keys, an unknown bucket, an endpoint nobody answers', async () => {
    const missing = await api().post('/cloud-storage/S3', { region: 'us-east-1' });
    expect(missing.statusCode).toBe(422);
    expect(
      missing
        .json()
        .detail.map((d: { loc: string[] }) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.access_key_id', 'body.bucket', 'body.secret_access_key']);

    const wrongKey = await api().post('/cloud-storage/S3', connectBody({ access_key_id: 'NOBODY' }));
    expect(wrongKey.statusCode).toBe(422);
    expect(wrongKey.json().detail[0].msg).toMatch(
      new RegExp(
        `^Could not write to the bucket ${BUCKET} at ${endpoint}: InvalidAccessKeyId \\(HTTP 403\\): The AWS Access Key Id`,
      ),
    );
    const noBucket = await api().post('/cloud-storage/S3', connectBody({ bucket: 'no-such-bucket' }));
    expect(noBucket.json().detail[0].msg).toMatch(/NoSuchBucket \(HTTP 404\)/);
    // A port that was just free: connection refused.
    const closed = await api().post('/cloud-storage/S3', connectBody({ endpoint: 'http://127.0.0.1:1' }));
    expect(closed.statusCode).toBe(422);
    expect(closed.json().detail[0].msg).toMatch(
      /^Could not write to the bucket acme-documents at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
    expect(
      (await api().post('/cloud-storage/S3', connectBody({ endpoint: 'ftp://example.com' }))).json().detail[0].loc,
    ).toEqual(['body', 'endpoint']);

    // Nothing was saved, and no probe object was left behind.
    expect((await api().get('/cloud-storage')).json()[1].status).toBe('AVAILABLE');
    expect(await listBucket()).toEqual([]);
  });

  it('should connect the bucket after a probe, keep the keys sealed and never answer them', async () => {
    const user = await createUser(t.app, acme.apiKey, { email: 'user@acme.test', role: 'USER' });
    expect((await client(t.app, user.apiKey).post('/cloud-storage/S3', connectBody())).statusCode).toBe(403);

    const response = await api().post('/cloud-storage/S3', connectBody());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      provider: 'S3',
      status: 'CONNECTED',
      reason: null,
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint,
      force_path_style: true,
      connected_at: expect.any(String),
    });
    expect(response.body).not.toContain('S3RVER');
    expect((await api().get('/cloud-storage')).body).not.toContain('S3RVER');
    const [row] = await t.orm.em
      .fork()
      .execute('select * from cloud_storage_connection where organization_id = ?', [acme.organizationId]);
    expect(row).toMatchObject({ bucket: BUCKET, connected_by_id: acme.userId });
    expect(JSON.stringify(row)).not.toContain('S3RVER');
    expect(row.sealed_credentials).not.toContain(Buffer.from('S3RVER').toString('base64').slice(0, 6));
    expect(await listBucket()).toEqual([]);
    // GraphQL answers the same, and has no field for the keys at all.
    const listed = await api().graphql(
      '{ cloudStorageProviders { provider status bucket endpoint forcePathStyle connectedAt } }',
    );
    expect(listed.data.cloudStorageProviders[1]).toEqual({
      provider: 'S3',
      status: 'CONNECTED',
      bucket: BUCKET,
      endpoint,
      forcePathStyle: true,
      connectedAt: expect.any(String),
    });
  });

  it("should keep one organization's connection its own", async () => {
    const other = client(t.app, globex.apiKey);
    expect((await other.get('/cloud-storage')).json()[1]).toMatchObject({
      provider: 'S3',
      status: 'AVAILABLE',
      bucket: null,
    });
    expect((await other.delete('/cloud-storage/S3')).json()).toMatchObject({ status: 'AVAILABLE' });
    const disconnect = await other.graphql(
      'mutation { cloudStorageDisconnect(provider: S3) { cloudStorageProvider { status } userErrors { message } } }',
    );
    expect(disconnect.data.cloudStorageDisconnect).toEqual({
      cloudStorageProvider: { status: 'AVAILABLE' },
      userErrors: [],
    });
    expect((await api().get('/cloud-storage')).json()[1]).toMatchObject({ status: 'CONNECTED', bucket: BUCKET });
    // Globex cannot name S3 without a bucket of its own; a request switched to S3 later (PATCH is
    // not checked) copies nothing into Acme's bucket, and says so.
    expect(
      (
        await other.post('/requests', {
          name: 'R',
          items: ITEMS,
          recipients: [{ email: 'ana@example.com' }],
          cloud_storage_provider: 'S3',
        })
      ).statusCode,
    ).toBe(422);
    const { token, items, request } = await requestWithLink(t.app, globex.apiKey, { items: ITEMS });
    expect((await other.patch(`/requests/${request.id}`, { cloud_storage_provider: 'S3' })).statusCode).toBe(200);
    const recipient = await signedIn(t.app, token);
    await recipient.upload(items[0].id, 'globex bytes');
    await recipient.submit();
    await runJobs();
    expect(await listBucket()).toEqual([]);
    const entries = (
      (await other.get(`/requests/${request.id}/activity`)).json() as Array<{ action: string; details: unknown }>
    ).filter((e) => e.action.startsWith('cloud_storage.'));
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'cloud_storage.copy_skipped',
        details: expect.objectContaining({ reason: 'No S3 bucket is connected' }),
      }),
    ]);
  });

  it('should copy the documents into cloud_storage_folder once the request completes, and again once it is verified, once each', async () => {
    const bytes = Buffer.from('%PDF-1.4 the W-2 of Ana\n');
    const request = await completedRequest('clients/ana diaz/../2024', bytes);
    expect(await listBucket()).toEqual([]);
    await runJobs();
    expect(await listBucket('clients/')).toEqual(['clients/ana diaz/2024/W-2/w2.pdf']);
    expect(await readObject('clients/ana diaz/2024/W-2/w2.pdf')).toEqual(bytes);

    expect((await api().post(`/requests/${request.id}/verify`)).statusCode).toBe(200);
    await runJobs();
    await runJobs();
    expect(await listBucket('clients/')).toEqual(['clients/ana diaz/2024/W-2/w2.pdf']);
    expect((await copyJobs(request.id)).map((job) => job.status)).toEqual(['DONE', 'DONE']);
    const entries = await activity(request.id);
    expect(entries.map((e) => [e.action, e.details.trigger])).toEqual([
      ['cloud_storage.copied', 'completed'],
      ['cloud_storage.copied', 'verified'],
    ]);
    expect(entries[0]).toMatchObject({
      actor: { type: 'SYSTEM' },
      details: { provider: 'S3', bucket: BUCKET, folder: 'clients/ana diaz/2024/', documents: 1, attempt: 1 },
    });
    await emptyBucket();
  });

  it("should copy a request without a folder under its id, and leave requests kept in Gather's storage alone", async () => {
    const request = await completedRequest(null, Buffer.from('no folder'));
    const kept = await requestWithLink(t.app, acme.apiKey, { items: ITEMS });
    const recipient = await signedIn(t.app, kept.token);
    await recipient.upload(kept.items[0].id, 'stays home');
    await recipient.submit();
    await runJobs();
    expect(await listBucket()).toEqual([`${request.id}/W-2/w2.pdf`]);
    expect(await activity(kept.request.id)).toEqual([]);
    expect(await copyJobs(kept.request.id)).toEqual([]);
    await emptyBucket();
  });

  it('should retry a copy that failed (the bucket gone), recording each attempt, and copy once it is back', async () => {
    await s3.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    const bytes = Buffer.from('retried bytes');
    const request = await completedRequest('retry', bytes);
    await runJobs();
    const [failed] = await activity(request.id);
    expect(failed).toMatchObject({
      action: 'cloud_storage.copy_failed',
      details: {
        attempt: 1,
        final: false,
        error: expect.stringMatching(/^NoSuchBucket \(HTTP 404\)/),
        next_attempt_at: expect.any(String),
      },
    });
    expect(await copyJobs(request.id)).toEqual([
      { status: 'PENDING', attempts: 1, last_error: expect.stringMatching(/NoSuchBucket/) },
    ]);
    // Not due again before its retry time.
    await runJobs();
    expect(await activity(request.id)).toHaveLength(1);

    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    offsetMs = 61_000;
    await runJobs();
    expect(await listBucket()).toEqual(['retry/W-2/w2.pdf']);
    expect(await readObject('retry/W-2/w2.pdf')).toEqual(bytes);
    expect((await activity(request.id)).map((e) => [e.action, e.details.attempt])).toEqual([
      ['cloud_storage.copy_failed', 1],
      ['cloud_storage.copied', 2],
    ]);
    await emptyBucket();
  });

  it('should copy without holding the request: its owner verifies while a copy waits on a silent bucket', async () => {
    // A bucket that takes connections and answers nothing, until the test cuts them (and every later one).
    const sockets: Socket[] = [];
    let cut = false;
    const silent = createServer((socket) => {
      socket.on('error', () => undefined);
      if (cut) socket.destroy();
      else sockets.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const setEndpoint = (url: string) =>
      t.db.transaction((tx) =>
        tx.execute('update cloud_storage_connection set endpoint = ? where organization_id = ?', [
          url,
          acme.organizationId,
        ]),
      );
    await setEndpoint(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    try {
      const request = await completedRequest('unhurried', Buffer.from('unhurried'));
      const copying = runJobs();
      await eventually(async () => sockets.length > 0);
      // The copy's PUT is waiting: the request is not locked, so the owner's verification goes through.
      expect((await api().post(`/requests/${request.id}/verify`)).statusCode).toBe(200);
      cut = true;
      for (const socket of sockets) socket.destroy();
      await copying;
      expect((await activity(request.id)).map((e) => [e.action, e.details.trigger])).toEqual([
        ['cloud_storage.copy_failed', 'completed'],
        ['cloud_storage.copy_failed', 'verified'],
      ]);
      await setEndpoint(endpoint);
      offsetMs = 61_000;
      await runJobs();
      expect(await listBucket()).toEqual(['unhurried/W-2/w2.pdf']);
      // Both retried, in either order.
      expect(
        (await activity(request.id))
          .slice(2)
          .map((e) => [e.action, e.details.trigger])
          .sort(),
      ).toEqual([
        ['cloud_storage.copied', 'completed'],
        ['cloud_storage.copied', 'verified'],
      ]);
    } finally {
      await setEndpoint(endpoint);
      await new Promise((resolve) => silent.close(resolve));
    }
    await emptyBucket();
  });

  it('should disconnect: the keys deleted, pending copies cancelled, later completions skipped and said so', async () => {
    // A copy waiting for its next attempt (the endpoint refused the first), then the bucket disconnected; another
    // request completes after.
    await t.db.transaction((tx) =>
      tx.execute('update cloud_storage_connection set endpoint = ? where organization_id = ?', [
        'http://127.0.0.1:1',
        acme.organizationId,
      ]),
    );
    const queued = await completedRequest('queued', Buffer.from('queued'));
    await runJobs();
    expect(await copyJobs(queued.id)).toEqual([expect.objectContaining({ status: 'PENDING', attempts: 1 })]);
    const later = await s3Request('later', Buffer.from('later'));
    const response = await api().delete('/cloud-storage/S3');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ provider: 'S3', status: 'AVAILABLE', bucket: null });
    expect(
      await t.orm.em
        .fork()
        .execute('select 1 from cloud_storage_connection where organization_id = ?', [acme.organizationId]),
    ).toEqual([]);
    expect(await copyJobs(queued.id)).toEqual([expect.objectContaining({ status: 'CANCELLED', attempts: 1 })]);

    await later.complete();
    offsetMs = 61_000;
    await runJobs();
    expect(await listBucket()).toEqual([]);
    // The cancelled copy made no second attempt.
    expect((await activity(queued.id)).map((e) => e.action)).toEqual(['cloud_storage.copy_failed']);
    expect((await activity(later.request.id)).map((e) => e.action)).toEqual(['cloud_storage.copy_skipped']);
  });

  it('should connect and refuse through GraphQL as over REST', async () => {
    const connect = `mutation ($provider: ConnectionProvider!, $input: CloudStorageConnectInput!) {
      cloudStorageConnect(provider: $provider, input: $input) { cloudStorageProvider { provider status bucket } userErrors { field message code } } }`;
    const refused = await api().graphql(connect, {
      provider: 'S3',
      input: { bucket: BUCKET, region: 'us-east-1', endpoint, accessKeyId: 'NOBODY', secretAccessKey: 'S3RVER' },
    });
    expect(refused.data.cloudStorageConnect).toEqual({
      cloudStorageProvider: null,
      userErrors: [{ field: ['input'], message: expect.stringMatching(/InvalidAccessKeyId/), code: 'INVALID' }],
    });
    const dropbox = await api().graphql(connect, { provider: 'DROPBOX', input: {} });
    expect(dropbox.data.cloudStorageConnect.userErrors[0].message).toMatch(/^DROPBOX cannot be connected/);
    const ok = await api().graphql(connect, {
      provider: 'S3',
      input: { bucket: BUCKET, region: 'us-east-1', endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    expect(ok.data.cloudStorageConnect).toEqual({
      cloudStorageProvider: { provider: 'S3', status: 'CONNECTED', bucket: BUCKET },
      userErrors: [],
    });
  });
});
