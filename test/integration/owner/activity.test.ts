import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';
import { recordActivity } from '../../../src/modules/activity/activity.service';

describe('the activity log (GET /requests/{id}/activity, Request.activity)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  it('should record every event on the request by its actor, newest first, with what changed', async () => {
    const dan = await createUser(t.app, tenant.apiKey, { email: 'dan@example.com', firstName: 'Dan' });
    const request = await createRequest(t.app, tenant.apiKey, { collaborators: [dan.userId] });
    const [upload] = request.items as { id: string }[];
    expect((await api.patch(`/requests/${request.id}`, { name: 'Renamed', notes: 'n' })).statusCode).toBe(200);
    const item = (
      await client(t.app, dan.apiKey).post(`/requests/${request.id}/items`, { name: 'Payslip', type: 'UPLOAD' })
    ).json();
    expect((await api.post(`/requests/${request.id}/items/${upload.id}/verify`)).statusCode).toBe(200);
    // The entries are the events' consumer's, once the events committed.
    await t.app.jobs.runDue();

    const response = await api.get(`/requests/${request.id}/activity`);
    expect(response.statusCode).toBe(200);
    const entries = response.json();
    const admin = {
      type: 'USER',
      id: tenant.userId,
      name: expect.stringMatching(/^admin-.*@example\.com$/),
      ip: null,
      user_agent: null,
    };
    expect(entries).toEqual([
      {
        id: expect.any(String),
        action: 'item.verified',
        actor: admin,
        created_at: expect.any(String),
        details: { item_id: upload.id },
      },
      {
        id: expect.any(String),
        action: 'item.created',
        actor: { type: 'USER', id: dan.userId, name: 'Dan', ip: null, user_agent: null },
        created_at: expect.any(String),
        details: { item_id: item.id },
      },
      {
        id: expect.any(String),
        action: 'request.updated',
        actor: admin,
        created_at: expect.any(String),
        details: { updated: ['name', 'notes'] },
      },
      { id: expect.any(String), action: 'request.created', actor: admin, created_at: expect.any(String), details: {} },
    ]);
    const times = entries.map((e: { created_at: string }) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('should page with limit in REST and with cursors in GraphQL', async () => {
    const request = await createRequest(t.app, tenant.apiKey);
    for (const name of ['One', 'Two', 'Three'])
      expect((await api.patch(`/requests/${request.id}`, { name })).statusCode).toBe(200);
    await t.app.jobs.runDue();

    const two = (await api.get(`/requests/${request.id}/activity?limit=2`)).json();
    expect(two.map((e: { action: string }) => e.action)).toEqual(['request.updated', 'request.updated']);
    expect((await api.get(`/requests/${request.id}/activity?limit=0`)).statusCode).toBe(422);

    const page = `query ($id: ID!, $after: String) { request(id: $id) { activity(first: 3, after: $after) {
      nodes { id action actor { type id name user { id } recipient { id } } details } pageInfo { hasNextPage endCursor } totalCount } } }`;
    const first = (await api.graphql(page, { id: request.id })).data.request.activity;
    expect(first.totalCount).toBe(4);
    expect(first.nodes.map((e: { id: string }) => e.id)).toEqual([two[0].id, two[1].id, expect.any(String)]);
    expect(first.nodes[0].actor).toEqual({
      type: 'USER',
      id: tenant.userId,
      name: expect.any(String),
      user: { id: tenant.userId },
      recipient: null,
    });
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = (await api.graphql(page, { id: request.id, after: first.pageInfo.endCursor })).data.request.activity;
    expect(rest.nodes.map((e: { action: string }) => e.action)).toEqual(['request.created']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
  });

  it('should show what recordActivity records for a recipient: its name, address and user agent', async () => {
    const request = await createRequest(t.app, tenant.apiKey);
    const recipient = (
      await api.graphql(`query ($id: ID!) { request(id: $id) { recipients { id } } }`, { id: request.id })
    ).data.request.recipients[0];
    await t.db.transaction((tx) =>
      recordActivity(tx, {
        organizationId: tenant.organizationId,
        requestId: request.id,
        action: 'recipient.opened',
        actor: { type: 'RECIPIENT', id: recipient.id, ip: '203.0.113.9', userAgent: 'Phone/1.0' },
      }),
    );
    const [latest] = (await api.get(`/requests/${request.id}/activity?limit=1`)).json();
    expect(latest).toEqual({
      id: expect.any(String),
      action: 'recipient.opened',
      actor: { type: 'RECIPIENT', id: recipient.id, name: 'Ana Diaz', ip: '203.0.113.9', user_agent: 'Phone/1.0' },
      created_at: expect.any(String),
      details: {},
    });
  });

  it('should answer 404 for a request the caller does not see', async () => {
    const request = await createRequest(t.app, tenant.apiKey);
    const other = await createTenant(t.db);
    expect((await client(t.app, other.apiKey).get(`/requests/${request.id}/activity`)).json()).toEqual({
      detail: 'Request not found',
    });
  });
});
