import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../support/app';

describe('identity', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.orm, 'Acme');
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
      expect(body).toMatchObject({ id: tenant.userId, role: 'ADMIN', organization_id: tenant.organizationId, organization_name: 'Acme' });
      expect(Object.values(body).every((v) => typeof v === 'string')).toBe(true);
    });
  });

  describe('viewer', () => {
    it('should be the same user as GET /whoami', async () => {
      const { data } = await client(t.app, tenant.apiKey).graphql('{ viewer { id email role organization { id name } team { id } } }');
      expect(data.viewer).toMatchObject({ id: tenant.userId, role: 'ADMIN', organization: { id: tenant.organizationId, name: 'Acme' }, team: null });
    });
  });
});
