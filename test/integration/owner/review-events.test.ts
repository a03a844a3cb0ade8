import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { subscribe, untilSubscribed, wsClient } from '../../support/ws';

describe("the review's topics reach subscribers (request.rejected, request.verified)", () => {
  let t: TestApp;
  let tenant: Tenant;
  let ws: ReturnType<typeof wsClient>['client'];

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    ws = wsClient(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`, {
      authorization: `Bearer ${tenant.apiKey}`,
    }).client;
  });
  afterAll(async () => {
    await ws.dispose();
    await t.close();
  });

  it('should push requestRejected, requestVerified and the events stream with the request as it became', async () => {
    const api = client(t.app, tenant.apiKey);
    const rejected = subscribe(ws, 'subscription { requestRejected { id state rejection { message itemIds } } }');
    const verified = subscribe(ws, 'subscription { requestVerified { id state verified } }');
    const stream = subscribe(
      ws,
      'subscription { events(topics: [REQUEST_REJECTED, REQUEST_VERIFIED]) { topic ... on RequestEvent { request { state } } } }',
    );
    await untilSubscribed(() => t.app.subscriptions.subscriberCount, 3);
    const request = await createRequest(t.app, tenant.apiKey);
    const stage = () =>
      t.orm.em
        .fork()
        .execute(`update request set state = 'SUBMITTED', first_submitted_at = now() where id = ?`, [request.id]);

    await stage();
    expect(
      (await api.post(`/requests/${request.id}/reject`, { message: 'Redo the W-2', item_ids: [request.items[0].id] }))
        .statusCode,
    ).toBe(200);
    expect((await rejected.next()).data).toEqual({
      requestRejected: {
        id: request.id,
        state: 'REJECTED',
        rejection: { message: 'Redo the W-2', itemIds: [request.items[0].id] },
      },
    });
    expect((await stream.next()).data).toEqual({
      events: { topic: 'REQUEST_REJECTED', request: { state: 'REJECTED' } },
    });

    await stage();
    expect((await api.post(`/requests/${request.id}/verify`)).statusCode).toBe(200);
    expect((await verified.next()).data).toEqual({
      requestVerified: { id: request.id, state: 'VERIFIED', verified: true },
    });
    expect((await stream.next()).data).toEqual({
      events: { topic: 'REQUEST_VERIFIED', request: { state: 'VERIFIED' } },
    });
  });
});
