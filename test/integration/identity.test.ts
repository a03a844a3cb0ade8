import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../support/app';

describe('identity', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Acme');
  });
  afterAll(() => t.close());

  describe('authentication', () => {
    it('should answer 401 with WWW-Authenticate when no key is sent', async () => {
      const response = await client(t.app).get('/whoami');
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({ detail: 'Not authenticated' });
    });

    it('should answer 401 for an unknown key', async () => {
      const response = await client(t.app, 'gth_nope').get('/whoami');
      expect(response.statusCode).toBe(401);
    });

    it('should accept the key in X-API-Key', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/whoami', headers: { 'x-api-key': tenant.apiKey } });
      expect(response.statusCode).toBe(200);
    });

    it('should answer GraphQL without a key with an UNAUTHENTICATED error', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ viewer { id } }' } });
      expect(response.statusCode).toBe(401);
      expect(response.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('GET /whoami', () => {
    it('should describe the caller with string properties only', async () => {
      const response = await client(t.app, tenant.apiKey).get('/whoami');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        id: tenant.userId,
        role: 'ADMIN',
        organization_id: tenant.organizationId,
        organization_name: 'Acme',
      });
      expect(Object.values(body).every((v) => typeof v === 'string')).toBe(true);
    });
  });

  describe('viewer', () => {
    it('should be the same user as GET /whoami', async () => {
      const { data } = await client(t.app, tenant.apiKey).graphql(
        '{ viewer { id email role organization { id name } team { id } } }',
      );
      expect(data.viewer).toMatchObject({
        id: tenant.userId,
        role: 'ADMIN',
        organization: { id: tenant.organizationId, name: 'Acme' },
        team: null,
      });
    });
  });
});

describe('identity management', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Initech');
  });
  afterAll(() => t.close());

  it('should let an ADMIN create teams and users, and list them over REST', async () => {
    const api = client(t.app, tenant.apiKey);
    const team = await api.graphql(
      `mutation { teamCreate(input: { name: "Sales" }) { team { id name organization { id } } userErrors { code } } }`,
    );
    const teamId = team.data.teamCreate.team.id;
    expect(team.data.teamCreate.team.organization.id).toBe(tenant.organizationId);
    const user = await api.graphql(
      `mutation ($input: UserCreateInput!) { userCreate(input: $input) { user { id email role team { id } } userErrors { field code } } }`,
      { input: { email: 'Peter@Initech.test', firstName: 'Peter', teamId } },
    );
    expect(user.data.userCreate.user).toMatchObject({
      email: 'Peter@Initech.test',
      role: 'USER',
      team: { id: teamId },
    });
    const userId = user.data.userCreate.user.id;

    const duplicate = await api.graphql(
      `mutation { userCreate(input: { email: "peter@initech.test" }) { user { id } userErrors { field code } } }`,
    );
    expect(duplicate.data.userCreate.userErrors).toEqual([{ field: ['input', 'email'], code: 'TAKEN' }]);

    expect((await api.get(`/users/${userId}`)).json()).toMatchObject({
      id: userId,
      email: 'Peter@Initech.test',
      first_name: 'Peter',
      role: 'USER',
      team_id: teamId,
    });
    expect((await api.get('/users')).json().map((u: { id: string }) => u.id)).toEqual([tenant.userId, userId]);
    expect(
      (await api.get(`/organizations/${tenant.organizationId}/users?limit=1`)).json().map((u: { id: string }) => u.id),
    ).toEqual([tenant.userId]);
    expect((await api.get(`/teams/${teamId}`)).json()).toMatchObject({
      id: teamId,
      name: 'Sales',
      member_ids: [userId],
    });
    expect((await api.get('/teams')).json().map((x: { id: string }) => x.id)).toEqual([teamId]);

    const promoted = await api.graphql(
      `mutation ($id: ID!) { userUpdate(id: $id, input: { role: ADMIN, teamId: null }) { user { role team { id } } } }`,
      { id: userId },
    );
    expect(promoted.data.userUpdate.user).toEqual({ role: 'ADMIN', team: null });
  });

  it('should make API keys that work at once and stop working when revoked', async () => {
    const api = client(t.app, tenant.apiKey);
    const created = await api.graphql(
      `mutation { apiKeyCreate(input: { name: "ci" }) { apiKey { id prefix name revokedAt user { id } } secret } }`,
    );
    const { apiKey, secret } = created.data.apiKeyCreate;
    expect(secret).toMatch(/^gth_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toMatchObject({
      prefix: secret.slice(0, 12),
      name: 'ci',
      revokedAt: null,
      user: { id: tenant.userId },
    });
    expect((await client(t.app, secret).get('/whoami')).statusCode).toBe(200);

    const revoked = await api.graphql(`mutation ($id: ID!) { apiKeyRevoke(id: $id) { apiKey { revokedAt } } }`, {
      id: apiKey.id,
    });
    expect(revoked.data.apiKeyRevoke.apiKey.revokedAt).toEqual(expect.any(String));
    expect((await client(t.app, secret).get('/whoami')).statusCode).toBe(401);
  });

  it('should keep a USER from making keys for others', async () => {
    const api = client(t.app, tenant.apiKey);
    const user = await api.graphql(`mutation { userCreate(input: { email: "milton@initech.test" }) { user { id } } }`);
    const key = await api.graphql(`mutation ($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) { secret } }`, {
      input: { userId: user.data.userCreate.user.id },
    });
    const milton = client(t.app, key.data.apiKeyCreate.secret);
    const result = await milton.graphql(
      `mutation ($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) { secret } }`,
      { input: { userId: tenant.userId } },
    );
    expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
