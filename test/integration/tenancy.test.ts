import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../support/app';
import { createRequest, createTeam, createUser } from '../support/fixtures';

describe('tenancy', () => {
  let t: TestApp;
  let acme: Tenant;
  let globex: Tenant;
  let request: { id: string; items: Array<{ id: string }>; recipients: Array<{ recipient: { id: string } }> };
  let templateId: string;
  let teamId: string;
  let memberId: string;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await createTenant(t.db, 'Acme');
    globex = await createTenant(t.db, 'Globex');
    const api = client(t.app, acme.apiKey);
    templateId = (
      await api.post('/templates', { name: 'Acme template', items: [{ name: 'A', type: 'UPLOAD' }] })
    ).json().id;
    teamId = await createTeam(t.app, acme.apiKey, 'Acme team');
    memberId = (await createUser(t.app, acme.apiKey, { email: 'member@acme.test', teamId })).userId;
    request = await createRequest(t.app, acme.apiKey, { template_id: templateId, collaborators: [memberId] });
  });
  afterAll(() => t.close());

  describe("another organization's key", () => {
    it('should get 404 on every by-id REST path', async () => {
      const api = client(t.app, globex.apiKey);
      const r = request.id;
      const i = request.items[0].id;
      const calls: Array<[string, () => ReturnType<typeof api.get>]> = [
        ['GET request', () => api.get(`/requests/${r}`)],
        ['PATCH request', () => api.patch(`/requests/${r}`, { name: 'stolen' })],
        ['DELETE request', () => api.delete(`/requests/${r}`)],
        ['close request', () => api.post(`/requests/${r}/close`)],
        ['create item', () => api.post(`/requests/${r}/items`, { name: 'x', type: 'UPLOAD' })],
        ['list items', () => api.get(`/requests/${r}/items`)],
        ['GET item', () => api.get(`/requests/${r}/items/${i}`)],
        ['PATCH item', () => api.patch(`/requests/${r}/items/${i}`, { name: 'x' })],
        ['DELETE item', () => api.delete(`/requests/${r}/items/${i}`)],
        ['verify item', () => api.post(`/requests/${r}/items/${i}/verify`)],
        ['GET template', () => api.get(`/templates/${templateId}`)],
        ['PATCH template', () => api.patch(`/templates/${templateId}`, { name: 'x' })],
        ['DELETE template', () => api.delete(`/templates/${templateId}`)],
        ['organization requests', () => api.get(`/organizations/${acme.organizationId}/requests`)],
        ['organization templates', () => api.get(`/organizations/${acme.organizationId}/templates`)],
        ['organization users', () => api.get(`/organizations/${acme.organizationId}/users`)],
        ['organization contacts', () => api.get(`/organizations/${acme.organizationId}/contacts`)],
        ['GET user', () => api.get(`/users/${acme.userId}`)],
        ['GET team', () => api.get(`/teams/${teamId}`)],
        [
          'create from template',
          () => api.post('/requests', { template_id: templateId, recipients: [{ email: 'x@example.com' }] }),
        ],
      ];
      for (const [name, call] of calls) {
        const response = await call();
        expect({ name, status: response.statusCode }).toEqual({ name, status: 404 });
        expect(response.json().detail).toMatch(/ not found$/);
      }
      // Nothing changed for Acme.
      const mine = (await client(t.app, acme.apiKey).get(`/requests/${r}`)).json();
      expect(mine).toMatchObject({ name: 'Tax documents 2024', state: 'INCOMPLETE_AND_LINK_SENT', deleted: false });
      expect(mine.items).toEqual(request.items);
    });

    it("should not reach Acme's contacts or users through a new request", async () => {
      const response = await client(t.app, globex.apiKey).post('/requests', {
        name: 'n',
        items: [],
        recipients: [{ id: request.recipients[0].recipient.id }],
        collaborators: [acme.userId],
        owner_id: acme.userId,
      });
      expect(response.statusCode).toBe(422);
      expect(
        response
          .json()
          .detail.map((d: { loc: string[] }) => d.loc.join('.'))
          .sort(),
      ).toEqual(['body.collaborators.0.id', 'body.owner_id', 'body.recipients.0.id']);
    });

    it("should never list Acme's records", async () => {
      const api = client(t.app, globex.apiKey);
      await createRequest(t.app, globex.apiKey);
      const bodies = await Promise.all(
        ['/requests?limit=100', '/templates?limit=100', '/contacts?limit=100', '/users?limit=100', '/teams'].map(
          (url) => api.get(url),
        ),
      );
      const text = bodies.map((b) => b.body).join('\n');
      for (const id of [request.id, templateId, acme.userId, memberId, teamId, request.recipients[0].recipient.id])
        expect(text).not.toContain(id);
    });

    it('should see null for Acme records through GraphQL, and NOT_FOUND from mutations', async () => {
      const api = client(t.app, globex.apiKey);
      const { data } = await api.graphql(
        `query ($r: ID!, $t: ID!, $u: ID!, $team: ID!) { request(id: $r) { id } template(id: $t) { id } user(id: $u) { id } team(id: $team) { id }
          node(id: $r) { id } org: node(id: "${acme.organizationId}") { id } requests(first: 100) { nodes { id } } }`,
        { r: request.id, t: templateId, u: acme.userId, team: teamId },
      );
      expect(data).toMatchObject({ request: null, template: null, user: null, team: null, node: null, org: null });
      expect(data.requests.nodes.map((n: { id: string }) => n.id)).not.toContain(request.id);
      const closed = await api.graphql(`mutation ($id: ID!) { requestClose(id: $id) { request { id } } }`, {
        id: request.id,
      });
      expect(closed.errors?.[0]).toMatchObject({ message: 'Request not found', extensions: { code: 'NOT_FOUND' } });
    });
  });

  describe('a USER', () => {
    let stranger: { userId: string; apiKey: string };
    let member: { userId: string; apiKey: string };
    beforeAll(async () => {
      stranger = await createUser(t.app, acme.apiKey, { email: 'stranger@acme.test' });
      member = await createUser(t.app, acme.apiKey, { email: 'teammate@acme.test', teamId });
    });

    it('should see requests it owns, its team owns, or collaborates on, and no others', async () => {
      const ownByStranger = await createRequest(t.app, stranger.apiKey, { name: 'Stranger own' });
      const teamRequest = await createRequest(t.app, acme.apiKey, { name: 'Team request', owner_id: memberId });
      const adminOnly = await createRequest(t.app, acme.apiKey, { name: 'Admin only' });

      const strangerList = (await client(t.app, stranger.apiKey).get('/requests?limit=100'))
        .json()
        .map((r: { id: string }) => r.id);
      expect(strangerList).toEqual([ownByStranger.id]);
      expect((await client(t.app, stranger.apiKey).get(`/requests/${adminOnly.id}`)).statusCode).toBe(404);

      const memberApi = client(t.app, member.apiKey);
      const memberList = (await memberApi.get('/requests?limit=100')).json().map((r: { id: string }) => r.id);
      // The teammate sees the team's request; the first request is visible through the collaborator's team too.
      expect(memberList).toEqual(expect.arrayContaining([teamRequest.id]));
      expect(memberList).not.toContain(adminOnly.id);
      expect(memberList).not.toContain(ownByStranger.id);
      expect(
        (await client(t.app, acme.apiKey).get('/requests?limit=100')).json().map((r: { id: string }) => r.id),
      ).toEqual(expect.arrayContaining([ownByStranger.id, teamRequest.id, adminOnly.id]));
    });

    it('should file requests under its own team only (403 otherwise)', async () => {
      const otherTeam = await createTeam(t.app, acme.apiKey, 'Other team');
      const refused = await client(t.app, member.apiKey).post('/requests', {
        name: 'x',
        items: [],
        recipients: [{ email: 'z@example.com' }],
        team_id: otherTeam,
      });
      expect(refused.statusCode).toBe(403);
      const own = await createRequest(t.app, member.apiKey, { team_id: teamId });
      expect(own.team_id).toBe(teamId);
    });

    it('should update a request it collaborates on, but not delete it (403)', async () => {
      const collaborator = await createUser(t.app, acme.apiKey, { email: 'collab@acme.test' });
      const shared = await createRequest(t.app, acme.apiKey, { collaborators: [collaborator.userId] });
      const api = client(t.app, collaborator.apiKey);
      expect((await api.patch(`/requests/${shared.id}`, { notes: 'by collaborator' })).statusCode).toBe(200);
      const deleted = await api.delete(`/requests/${shared.id}`);
      expect(deleted.statusCode).toBe(403);
      expect((await api.patch(`/requests/${shared.id}`, { collaborators: [] })).statusCode).toBe(403);
      const { data } = await api.graphql(`query ($id: ID!) { request(id: $id) { viewerCanUpdate viewerCanDelete } }`, {
        id: shared.id,
      });
      expect(data.request).toEqual({ viewerCanUpdate: true, viewerCanDelete: false });
    });

    it("should see its own and its team's templates only", async () => {
      const own = (await client(t.app, stranger.apiKey).post('/templates', { name: 'Mine' })).json();
      const teamTemplate = (await client(t.app, member.apiKey).post('/templates', { name: 'Team template' })).json();
      const strangerTemplates = (await client(t.app, stranger.apiKey).get('/templates?limit=100'))
        .json()
        .map((x: { id: string }) => x.id);
      expect(strangerTemplates).toEqual([own.id]);
      expect((await client(t.app, stranger.apiKey).get(`/templates/${templateId}`)).statusCode).toBe(404);
      const memberTemplates = (await client(t.app, member.apiKey).get('/templates?limit=100'))
        .json()
        .map((x: { id: string }) => x.id);
      expect(memberTemplates).toContain(teamTemplate.id);
      expect(memberTemplates).not.toContain(own.id);
    });

    it('should not manage users or teams (FORBIDDEN)', async () => {
      const api = client(t.app, stranger.apiKey);
      const result = await api.graphql(`mutation { teamCreate(input: { name: "Rogue" }) { team { id } } }`);
      expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
      const user = await api.graphql(`mutation { userCreate(input: { email: "x@acme.test" }) { user { id } } }`);
      expect(user.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    });
  });
});
