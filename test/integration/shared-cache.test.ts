import { once } from 'node:events';
import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../support/app';
import { requestBody } from '../support/fixtures';

// Two instances on one database: each keeps API keys' callers, organizations' settings and users between
// requests (src/kernel/db/shared-cache.ts), and a change through either, or behind both (the CLI,
// SQL), reaches the other's cache through PostgreSQL's NOTIFY.

describe('caches shared between instances', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
    tenant = await createTenant(a.db);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  /** Statements `b` sends for one GET /whoami with `key`, and the status it answers. */
  async function whoamiOnB(key: string): Promise<{ status: number; lookups: number }> {
    b.sql.reset();
    const response = await client(b.app, key).get('/whoami');
    return { status: response.statusCode, lookups: b.sql.statements.filter((s) => s.includes('from api_key')).length };
  }

  /** Resolves when `app` has heard a change to a cached table. */
  const heard = (app: TestApp) => once(app.app.eventDispatcher, 'cacheChanged');

  async function newKey(): Promise<{ id: string; secret: string }> {
    const created = await client(a.app, tenant.apiKey).graphql(
      `mutation { apiKeyCreate(input: { name: "second" }) { apiKey { id } secret } }`,
    );
    return { id: created.data.apiKeyCreate.apiKey.id, secret: created.data.apiKeyCreate.secret };
  }

  it('should resolve a key once, then from the cache', async () => {
    const key = await newKey();
    expect(await whoamiOnB(key.secret)).toEqual({ status: 200, lookups: 1 });
    expect(await whoamiOnB(key.secret)).toEqual({ status: 200, lookups: 0 });
  });

  it('should refuse a key revoked on the other instance', async () => {
    const key = await newKey();
    expect((await whoamiOnB(key.secret)).status).toBe(200);
    expect((await whoamiOnB(key.secret)).lookups).toBe(0);
    const notified = heard(b);
    const revoked = await client(a.app, tenant.apiKey).graphql(
      `mutation ($id: ID!) { apiKeyRevoke(id: $id) { apiKey { id } } }`,
      { id: key.id },
    );
    expect(revoked.errors).toBeUndefined();
    await notified;
    expect(await whoamiOnB(key.secret)).toEqual({ status: 401, lookups: 1 });
  });

  it('should refuse a key revoked on the same instance at once', async () => {
    const key = await newKey();
    const api = client(a.app, key.secret);
    expect((await api.get('/whoami')).statusCode).toBe(200);
    expect(
      (await api.graphql(`mutation ($id: ID!) { apiKeyRevoke(id: $id) { apiKey { id } } }`, { id: key.id })).errors,
    ).toBeUndefined();
    // No wait for the notification: the revoking instance forgot the key before answering.
    expect((await api.get('/whoami')).statusCode).toBe(401);
  });

  it('should refuse a key revoked behind both instances, in SQL', async () => {
    const key = await newKey();
    expect((await whoamiOnB(key.secret)).status).toBe(200);
    const notified = heard(b);
    await a.orm.em.fork().getConnection().execute(`update api_key set revoked_at = now() where id = ?`, [key.id]);
    await notified;
    expect((await whoamiOnB(key.secret)).status).toBe(401);
  });

  it("should act with the user's new role once it changed on the other instance", async () => {
    const member = await client(a.app, tenant.apiKey).graphql(
      `mutation { userCreate(input: { email: "member@example.com", role: ADMIN }) { user { id } } }`,
    );
    const userId = member.data.userCreate.user.id;
    const created = await client(a.app, tenant.apiKey).graphql(
      `mutation ($u: ID!) { apiKeyCreate(input: { userId: $u }) { secret } }`,
      { u: userId },
    );
    const onB = client(b.app, created.data.apiKeyCreate.secret);
    // Creating a team takes an ADMIN, as the viewer the key resolves to says.
    const createTeam = async (name: string) =>
      (await onB.graphql(`mutation ($name: String!) { teamCreate(input: { name: $name }) { team { id } } }`, { name }))
        .errors?.[0]?.extensions?.code ?? 'OK';
    expect(await createTeam('By an admin')).toBe('OK');
    const notified = heard(b);
    const updated = await client(a.app, tenant.apiKey).graphql(
      `mutation ($u: ID!) { userUpdate(id: $u, input: { role: USER }) { user { role } } }`,
      { u: userId },
    );
    expect(updated.data.userUpdate.user.role).toBe('USER');
    await notified;
    expect(await createTeam('By a user')).toBe('FORBIDDEN');
  });

  it("should answer an owner's new name at once on the instance that changed it, and once notified on the other", async () => {
    await client(a.app, tenant.apiKey).post('/requests', requestBody({ name: 'Owned' }));
    const owners = async (app: TestApp) => {
      app.sql.reset();
      const listed = await client(app.app, tenant.apiKey).graphql(
        `{ requests(first: 1) { nodes { owner { firstName } } } }`,
      );
      const reads = app.sql.statements.filter((sql) => sql.includes('from app_user')).length;
      return { firstName: listed.data.requests.nodes[0].owner.firstName, reads };
    };
    const before = (await owners(b)).firstName;
    // Users are kept by each instance (identity.loaders.ts): read once.
    expect(await owners(b)).toEqual({ firstName: before, reads: 0 });
    expect((await owners(a)).firstName).toBe(before);
    const notified = heard(b);
    const renamed = await client(a.app, tenant.apiKey).graphql(
      `mutation ($u: ID!) { userUpdate(id: $u, input: { firstName: "Renamed" }) { user { firstName } } }`,
      { u: tenant.userId },
    );
    expect(renamed.errors).toBeUndefined();
    expect(await owners(a)).toEqual({ firstName: 'Renamed', reads: 1 });
    await notified;
    expect(await owners(b)).toEqual({ firstName: 'Renamed', reads: 1 });
  });

  it("should create requests with the organization's settings as changed on the other instance", async () => {
    const smsRecipient = [{ email: 'bo@example.com', auth_method: 'SMS', phone: '+15550001111' }];
    const onB = client(b.app, tenant.apiKey);
    expect((await onB.post('/requests', requestBody({ recipients: smsRecipient }))).statusCode).toBe(200);
    const notified = heard(b);
    const patched = await client(a.app, tenant.apiKey).patch(`/organizations/${tenant.organizationId}/settings`, {
      allowed_auth_methods: ['EMAIL'],
      default_language: 'es',
    });
    expect(patched.statusCode).toBe(200);
    await notified;
    expect((await onB.post('/requests', requestBody({ recipients: smsRecipient }))).statusCode).toBe(422);
    const created = await onB.post(
      '/requests',
      requestBody({ recipients: [{ email: 'cy@example.com', auth_method: 'EMAIL' }] }),
    );
    expect(created.json().language).toBe('es');
  });
});
