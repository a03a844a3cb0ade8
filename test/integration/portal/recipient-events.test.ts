import type { AddressInfo } from 'node:net';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createContract, pdfBytes } from '../../support/files';
import { requestWithLink, signedIn } from '../../support/portal';
import { subscribe, untilSubscribed, wsClient } from '../../support/ws';
import { startReceiver } from '../../support/receiver';
import { eventually } from '../../support/fixtures';

// What a recipient does reaches the owner's live dashboards and webhooks alike, through the outbox:
// item.updated, document.uploaded, contract.signed, request.submitted, request.completed.

describe("a recipient's changes reach subscribers and webhooks", () => {
  let t: TestApp;
  let tenant: Tenant;
  let ws: ReturnType<typeof wsClient>['client'];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    ws = wsClient(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`, {
      authorization: `Bearer ${tenant.apiKey}`,
    }).client;
  });
  afterAll(async () => {
    await ws.dispose();
    await t.close();
    await receiver.close();
  });

  it('should push each topic with the record as it became, and deliver the same topics to a webhook', async () => {
    const topics = ['item.updated', 'document.uploaded', 'contract.signed', 'request.submitted', 'request.completed'];
    const hook = await client(t.app, tenant.apiKey).post('/webhooks', { endpoint: receiver.url, topics });
    expect(hook.statusCode).toBe(200);
    const stream = subscribe(
      ws,
      'subscription { events(topics: [ITEM_UPDATED, DOCUMENT_UPLOADED, CONTRACT_SIGNED, REQUEST_SUBMITTED, REQUEST_COMPLETED]) { topic } }',
    );
    const submitted = subscribe(ws, 'subscription { requestSubmitted { id state } }');
    await untilSubscribed(() => t.app.subscriptions.subscriberCount, 2);
    const contract = await createContract(t.app, tenant.apiKey);
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey, {
      items: [
        { type: 'UPLOAD', name: 'W-2' },
        { type: 'E_SIGNATURE', name: 'Letter', contract_id: contract.id },
      ],
    });
    const p = await signedIn(t.app, token);
    expect((await p.upload(items[0].id, await pdfBytes())).statusCode).toBe(200);
    const sign = await t.app.inject({
      method: 'POST',
      url: `${p.base}/items/${items[1].id}/sign`,
      headers: { authorization: `Bearer ${p.session}` },
      payload: { signature: { type: 'TYPED', text: 'Ana Diaz' } },
    });
    expect(sign.statusCode).toBe(200);
    expect((await p.submit()).json().state).toBe('COMPLETE_AND_SUBMITTED');

    const expected = [
      'DOCUMENT_UPLOADED',
      'ITEM_UPDATED',
      'CONTRACT_SIGNED',
      'DOCUMENT_UPLOADED',
      'ITEM_UPDATED',
      'REQUEST_SUBMITTED',
      'REQUEST_COMPLETED',
    ];
    const seen: string[] = [];
    for (const _ of expected) seen.push((await stream.next()).data.events.topic);
    expect(seen).toEqual(expected);
    expect((await submitted.next()).data).toEqual({
      requestSubmitted: { id: request.id, state: 'COMPLETE_AND_SUBMITTED' },
    });

    await t.app.jobs.runDue();
    const delivered = await eventually(async () =>
      receiver.received.length >= expected.length ? receiver.received : null,
    );
    expect(delivered.map((r) => r.json.type ?? r.json.topic)).toEqual(
      expected.map((topic) => topic.toLowerCase().replace('_', '.')),
    );
  });
});
