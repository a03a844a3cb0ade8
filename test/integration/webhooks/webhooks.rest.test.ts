import { client, createTenant, createTenantApp, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createUser, UNKNOWN_ID } from '../../support/fixtures';

describe('REST webhooks', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  const create = async (body: Record<string, unknown> = {}) => {
    const response = await api.post('/webhooks', {
      endpoint: 'https://hooks.example.com/gather',
      topics: ['request.created', 'item.verified'],
      ...body,
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  };

  it('POST /webhooks should answer the subscription with its secret', async () => {
    const webhook = await create();
    expect(webhook).toEqual({
      id: expect.any(String),
      endpoint: 'https://hooks.example.com/gather',
      topics: ['request.created', 'item.verified'],
      enabled: true,
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
  });

  it('GET /webhooks/{id} should not show the secret; GET /webhooks/{id}/secret should', async () => {
    const webhook = await create();
    const got = await api.get(`/webhooks/${webhook.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty('secret');
    expect(JSON.stringify(got.json())).not.toContain(webhook.secret);
    const secret = await api.get(`/webhooks/${webhook.id}/secret`);
    expect(secret.json()).toMatchObject({ id: webhook.id, secret: webhook.secret });
    // Stored sealed: the database alone does not show it.
    const [row] = await t.orm.em.fork().execute(`select secret_sealed from webhook where id = ?`, [webhook.id]);
    expect(row.secret_sealed).not.toContain(webhook.secret.slice(6, 20));
  });

  it('GET /webhooks should list oldest first, filtered by topic', async () => {
    const other = await createTenant(t.db);
    const otherApi = client(t.app, other.apiKey);
    const a = (
      await otherApi.post('/webhooks', { endpoint: 'https://a.example.com/', topics: ['request.created'] })
    ).json();
    const b = (
      await otherApi.post('/webhooks', {
        endpoint: 'https://b.example.com/',
        topics: ['request.updated', 'request.created'],
      })
    ).json();
    expect((await otherApi.get('/webhooks')).json().map((w: { id: string }) => w.id)).toEqual([a.id, b.id]);
    expect((await otherApi.get('/webhooks?topic=request.updated')).json().map((w: { id: string }) => w.id)).toEqual([
      b.id,
    ]);
    expect((await otherApi.get('/webhooks?topic=request.nope')).statusCode).toBe(422);
  });

  it('should answer 422 for unknown topics, no topics, repeated topics, or a bad endpoint', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ endpoint: 'https://x.example.com', topics: ['request.exploded'] }, 'body.topics.0'],
      [{ endpoint: 'https://x.example.com', topics: [] }, 'body.topics'],
      [{ endpoint: 'https://x.example.com', topics: ['request.created', 'request.created'] }, 'body.topics'],
      [{ endpoint: 'not a url', topics: ['request.created'] }, 'body.endpoint'],
      [{ endpoint: 'ftp://x.example.com', topics: ['request.created'] }, 'body.endpoint'],
      [{ endpoint: 'https://user:pass@x.example.com', topics: ['request.created'] }, 'body.endpoint'],
      [{ topics: ['request.created'] }, 'body.endpoint'],
    ];
    for (const [body, loc] of cases) {
      const response = await api.post('/webhooks', body);
      expect({ body, status: response.statusCode }).toEqual({ body, status: 422 });
      expect(response.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toContain(loc);
    }
  });

  it('PATCH /webhooks/{id} should change endpoint and topics, and enable or disable', async () => {
    const webhook = await create();
    const changed = await api.patch(`/webhooks/${webhook.id}`, {
      endpoint: 'https://new.example.com/hook',
      topics: ['request.closed'],
    });
    expect(changed.json()).toMatchObject({
      endpoint: 'https://new.example.com/hook',
      topics: ['request.closed'],
      enabled: true,
    });
    const disabled = await api.patch(`/webhooks/${webhook.id}`, { enabled: false });
    expect(disabled.json()).toMatchObject({ enabled: false, disabled_reason: 'Disabled by an administrator' });
    const enabled = await api.patch(`/webhooks/${webhook.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_at: null });
    expect((await api.patch(`/webhooks/${webhook.id}`, { topics: ['nope'] })).statusCode).toBe(422);
    expect((await api.patch(`/webhooks/${UNKNOWN_ID}`, { topics: ['request.closed'] })).statusCode).toBe(404);
  });

  it('POST /webhooks/{id}/secret/rotate should answer a new secret and keep the old one in grace', async () => {
    const webhook = await create();
    const rotated = await api.post(`/webhooks/${webhook.id}/secret/rotate`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).not.toBe(webhook.secret);
    expect(Date.parse(rotated.json().previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
  });

  it('DELETE /webhooks/{id} should answer 204, then 404', async () => {
    const webhook = await create();
    const response = await api.delete(`/webhooks/${webhook.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await api.get(`/webhooks/${webhook.id}`)).statusCode).toBe(404);
    expect((await api.get(`/webhooks/${webhook.id}/secret`)).json()).toEqual({ detail: 'Webhook not found' });
  });

  it("should answer 404 on another organization's webhooks and 403 to a USER", async () => {
    const webhook = await create();
    const other = client(t.app, (await createTenant(t.db)).apiKey);
    for (const response of [
      await other.get(`/webhooks/${webhook.id}`),
      await other.get(`/webhooks/${webhook.id}/secret`),
      await other.patch(`/webhooks/${webhook.id}`, { enabled: false }),
      await other.delete(`/webhooks/${webhook.id}`),
      await other.post(`/webhooks/${webhook.id}/secret/rotate`),
      await other.get(`/webhooks/${webhook.id}/deliveries`),
    ]) {
      expect(response.statusCode).toBe(404);
    }
    expect((await other.get('/webhooks')).json().map((w: { id: string }) => w.id)).not.toContain(webhook.id);
    const user = await createUser(t.app, tenant.apiKey, { email: 'no.hooks@example.com' });
    expect((await client(t.app, user.apiKey).get('/webhooks')).statusCode).toBe(403);
    expect(
      (
        await client(t.app, user.apiKey).post('/webhooks', {
          endpoint: 'https://x.example.com',
          topics: ['request.created'],
        })
      ).statusCode,
    ).toBe(403);
  });
});

describe('webhook endpoints when private targets are not allowed', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    // A staged DNS: what production DNS could answer for these names.
    const answers: Record<string, string[]> = {
      'internal.test': ['10.0.0.5'],
      'public.test': ['93.184.216.34'],
      'mixed.test': ['93.184.216.34', '127.0.0.1'],
    };
    t = await createTestApp(
      {
        webhooks: {
          allowPrivate: false,
          timeoutMs: 2000,
          secretGraceMs: 86_400_000,
          disableAfterMs: 432_000_000,
        },
      },
      {
        resolveHost: async (host) => {
          if (!answers[host]) throw new Error('ENOTFOUND');
          return answers[host];
        },
      },
    );
    api = client(t.app, (await createTenant(t.db)).apiKey);
  });
  afterAll(() => t.close());

  it('should refuse loopback, private, link-local and unresolvable hosts, and plain http', async () => {
    for (const endpoint of [
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://internal.test/hook',
      'https://mixed.test/hook',
      'https://nowhere.test/hook',
      'http://public.test/hook',
    ]) {
      const response = await api.post('/webhooks', { endpoint, topics: ['request.created'] });
      expect({ endpoint, status: response.statusCode }).toEqual({ endpoint, status: 422 });
      expect(response.json().detail[0].loc).toEqual(['body', 'endpoint']);
    }
    expect(
      (await api.post('/webhooks', { endpoint: 'https://public.test/hook', topics: ['request.created'] })).statusCode,
    ).toBe(200);
  });
});
