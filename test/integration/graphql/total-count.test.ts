import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';

// totalCount counts a list row by row only up to EXACT_COUNT_LIMIT (here 3); past it the count is
// PostgreSQL's estimate and says so.
describe('totalCount past the exact limit', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  const COUNT = `query ($states: [RequestState!]) { requests(first: 2, filter: { states: $states }) { totalCount totalCountEstimated nodes { id } } }`;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp({ exactCountLimit: 3 }));
    for (let i = 0; i < 5; i++) await createRequest(t.app, tenant.apiKey, { name: `R${i}` });
  });
  afterAll(() => t.close());

  it('should count exactly up to the limit', async () => {
    const other = await createTenant(t.db);
    for (let i = 0; i < 3; i++) await createRequest(t.app, other.apiKey);
    const atLimit = (await client(t.app, other.apiKey).graphql(COUNT)).data.requests;
    expect(atLimit).toMatchObject({ totalCount: 3, totalCountEstimated: false });
    expect(atLimit.nodes).toHaveLength(2);
  });

  it('should answer an estimate, flagged and never below the rows counted, past the limit', async () => {
    const past = (await api.graphql(COUNT)).data.requests;
    expect(past.totalCountEstimated).toBe(true);
    expect(past.totalCount).toBeGreaterThanOrEqual(4);
    expect(past.nodes).toHaveLength(2);
  });

  it('should count a filtered list exactly when the filter leaves fewer rows than the limit', async () => {
    const [closed] = (await api.graphql(`{ requests(first: 1) { nodes { id } } }`)).data.requests.nodes;
    expect((await api.post(`/requests/${closed.id}/close`)).statusCode).toBe(200);
    const filtered = (await api.graphql(COUNT, { states: ['CLOSED'] })).data.requests;
    expect(filtered).toMatchObject({ totalCount: 1, totalCountEstimated: false });
  });
});
