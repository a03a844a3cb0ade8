import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';

// Query.requestEvents reads the outbox back for a client that lost its subscription: what happened
// on the requests it sees, oldest first, paged by cursor, from a time, by topic.

const EVENTS = `query ($first: Int, $after: String, $since: DateTime, $topics: [WebhookTopic!], $requestId: ID) {
  requestEvents(first: $first, after: $after, since: $since, topics: $topics, requestId: $requestId) {
    nodes { eventId topic createdAt updated request { id name state } }
    hasNextPage
    endCursor
    totalCount
  }
}`;

describe('Query.requestEvents', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  const events = async (key: string, variables: Record<string, unknown> = {}) => {
    const result = await client(t.app, key).graphql(EVENTS, variables);
    expect(result.errors).toBeUndefined();
    return result.data.requestEvents;
  };

  it('should answer every event on the requests seen, oldest first, with the request as it is now, paged and filtered', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const first = await createRequest(t.app, tenant.apiKey, { name: 'First' });
    await api.patch(`/requests/${first.id}`, { name: 'First, renamed' });
    await api.post(`/requests/${first.id}/items/${first.items[0].id}/verify`);
    const second = await createRequest(t.app, tenant.apiKey, { name: 'Second' });
    await api.delete(`/requests/${second.id}`);

    const all = await events(tenant.apiKey, { since: before, first: 100 });
    const topics = all.nodes.map(
      (node: { topic: string; request: { id: string } }) =>
        `${node.topic} ${node.request.id === first.id ? 'first' : 'second'}`,
    );
    expect(topics).toEqual(
      expect.arrayContaining([
        'REQUEST_CREATED first',
        'REQUEST_UPDATED first',
        'ITEM_VERIFIED first',
        'REQUEST_CREATED second',
        'REQUEST_DELETED second',
      ]),
    );
    expect(topics.indexOf('REQUEST_CREATED first')).toBeLessThan(topics.indexOf('REQUEST_UPDATED first'));
    expect(topics.indexOf('REQUEST_CREATED second')).toBeLessThan(topics.indexOf('REQUEST_DELETED second'));
    expect(all.hasNextPage).toBe(false);
    expect(all.totalCount).toBe(all.nodes.length);
    // The request as it reads now, not as each event committed it.
    expect(
      all.nodes
        .filter((node: { request: { id: string } }) => node.request.id === first.id)
        .every((node: { request: { name: string } }) => node.request.name === 'First, renamed'),
    ).toBe(true);
    expect(all.nodes.find((node: { topic: string }) => node.topic === 'REQUEST_UPDATED').updated).toEqual(['name']);

    // Two at a time, the pages follow one another without a gap or a repeat.
    const paged: string[] = [];
    let after: string | null = null;
    do {
      const page: { nodes: Array<{ eventId: string }>; hasNextPage: boolean; endCursor: string } = await events(
        tenant.apiKey,
        { since: before, first: 2, after },
      );
      paged.push(...page.nodes.map((node) => node.eventId));
      after = page.hasNextPage ? page.endCursor : null;
    } while (after);
    expect(paged).toEqual(all.nodes.map((node: { eventId: string }) => node.eventId));

    const created = await events(tenant.apiKey, { since: before, topics: ['REQUEST_CREATED'], first: 100 });
    expect(created.nodes.map((node: { request: { id: string } }) => node.request.id)).toEqual([first.id, second.id]);
    const ofFirst = await events(tenant.apiKey, { since: before, requestId: first.id, first: 100 });
    expect(new Set(ofFirst.nodes.map((node: { request: { id: string } }) => node.request.id))).toEqual(
      new Set([first.id]),
    );
    const later = await events(tenant.apiKey, { since: all.nodes.at(-1).createdAt, first: 100 });
    expect(later.nodes.map((node: { eventId: string }) => node.eventId)).toContain(all.nodes.at(-1).eventId);
    expect(later.nodes.length).toBeLessThan(all.nodes.length);
  });

  it("should show a USER only the requests it sees, and another organization's nothing", async () => {
    const user = await createUser(t.app, tenant.apiKey, { email: `una-${Date.now()}@example.com` });
    const theirs = await createRequest(t.app, tenant.apiKey, { name: 'Admin only' });
    const mine = await createRequest(t.app, user.apiKey, { name: 'Una' });
    const seen = (await events(user.apiKey, { first: 100 })).nodes.map(
      (node: { request: { id: string } }) => node.request.id,
    );
    expect(seen).toContain(mine.id);
    expect(seen).not.toContain(theirs.id);
    const other = await createTenant(t.db);
    expect((await events(other.apiKey, { first: 100 })).nodes).toEqual([]);
    const refused = await api.graphql(EVENTS, { after: 'not a cursor' });
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});
