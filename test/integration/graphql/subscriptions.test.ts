import WebSocket from 'ws';
import { client, createTenant, type TestApp, type Tenant } from '../../support/app';
import { submit } from '../../support/documents';
import { createRequest, createUser } from '../../support/fixtures';
import { listeningGraphqlApp, subscribe, untilSubscribed, wsClient, type ListeningGraphqlApp } from '../../support/ws';
import { MAX_MESSAGE_BYTES } from '../../../src/kernel/limits';

describe('GraphQL subscriptions (graphql-ws)', () => {
  let served: ListeningGraphqlApp;
  let t: TestApp;
  let acme: Tenant;
  let url: string;
  // Subscriptions stay open until the end, so each test waits for one (or two) more than before.
  let active = 0;

  const subscribed = (count: number) => untilSubscribed(() => t.app.subscriptions.subscriberCount, count);

  beforeAll(async () => {
    served = await listeningGraphqlApp();
    ({ t, acme, url } = served);
  });
  afterAll(() => served.close());
  const connect = (key: string, at?: string) => served.connect(key, at);

  it('should close an unauthenticated connection with 4403', async () => {
    for (const params of [undefined, { authorization: 'Bearer nope' }, { apiKey: 'nope' }]) {
      const { client: ws, closes } = wsClient(url, params);
      subscribe(ws, 'subscription { requestCreated { id } }');
      for (let waited = 0; !closes.length && waited < 3000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      expect(closes[0]?.code).toBe(4403);
      await ws.dispose();
    }
  });

  it('should accept the key as apiKey too', async () => {
    const { client: ws } = wsClient(url, { apiKey: acme.apiKey });
    served.clients.push(ws);
    const sub = subscribe(ws, 'subscription { requestCreated { name } }');
    await subscribed(++active);
    await createRequest(t.app, acme.apiKey, { name: 'Via apiKey' });
    expect((await sub.next()).data).toEqual({ requestCreated: { name: 'Via apiKey' } });
  });

  it('should push requestCreated with exactly the selected fields', async () => {
    const sub = subscribe(
      connect(acme.apiKey),
      'subscription { requestCreated { id name state owner { id } items { name kind } } }',
    );
    await subscribed(++active);
    const request = await createRequest(t.app, acme.apiKey, { name: 'Live one' });
    const { data } = await sub.next();
    expect(data).toEqual({
      requestCreated: {
        id: request.id,
        name: 'Live one',
        state: 'INCOMPLETE_AND_LINK_SENT',
        owner: { id: acme.userId },
        items: [
          { name: 'W-2', kind: 'UPLOAD' },
          { name: 'Any dependents?', kind: 'QUESTION' },
        ],
      },
    });
  });

  it('should narrow requestUpdated to one request', async () => {
    const watched = await createRequest(t.app, acme.apiKey);
    const other = await createRequest(t.app, acme.apiKey);
    const sub = subscribe(
      connect(acme.apiKey),
      'subscription ($id: ID) { requestUpdated(requestId: $id) { id notes } }',
      { id: watched.id },
    );
    await subscribed(++active);
    const api = client(t.app, acme.apiKey);
    await api.patch(`/requests/${other.id}`, { notes: 'not watched' });
    await api.patch(`/requests/${watched.id}`, { notes: 'first' });
    expect((await sub.next()).data).toEqual({ requestUpdated: { id: watched.id, notes: 'first' } });
    await api.patch(`/requests/${watched.id}`, { notes: 'second' });
    expect((await sub.next()).data).toEqual({ requestUpdated: { id: watched.id, notes: 'second' } });
  });

  it('should deliver quick successive changes in commit order, each naming what it changed, the record as it now reads', async () => {
    const watched = await createRequest(t.app, acme.apiKey);
    const sub = subscribe(
      connect(acme.apiKey),
      'subscription ($id: ID) { events(topics: [REQUEST_UPDATED], requestId: $id) { eventId ... on RequestEvent { updated request { notes name } } } }',
      { id: watched.id },
    );
    await subscribed(++active);
    const api = client(t.app, acme.apiKey);
    await api.patch(`/requests/${watched.id}`, { notes: 'first' });
    await api.patch(`/requests/${watched.id}`, { name: 'Renamed' });
    const first = (await sub.next()).data.events;
    const second = (await sub.next()).data.events;
    expect([first.updated, second.updated]).toEqual([['notes'], ['name']]);
    expect(first.eventId).not.toEqual(second.eventId);
    // Each shows the request as its own change wrote it (the instance that wrote it keeps the row).
    expect(first.request).toEqual({ notes: 'first', name: watched.name });
    expect(second.request).toEqual({ notes: 'first', name: 'Renamed' });
  });

  it('should answer subscribers who see the request by role or by ownership with one read of it per group', async () => {
    const owner = await createUser(t.app, acme.apiKey, { email: 'owner.ws@acme.test' });
    const watched = await createRequest(t.app, owner.apiKey);
    const query = 'subscription ($id: ID) { requestUpdated(requestId: $id) { id notes } }';
    const admin = subscribe(connect(acme.apiKey), query, { id: watched.id });
    const own = subscribe(connect(owner.apiKey), query, { id: watched.id });
    await subscribed((active += 2));
    t.sql.reset();
    await client(t.app, owner.apiKey).patch(`/requests/${watched.id}`, { notes: 'from the row' });
    const expected = { requestUpdated: { id: watched.id, notes: 'from the row' } };
    expect([(await admin.next()).data, (await own.next()).data]).toEqual([expected, expected]);
    // The PATCH's lock, then one read for each group of subscribers (who see alike), however many they are.
    expect(
      t.sql.statements.filter((q) => /^select r\.id, .* from request r where r\.id = \?/.test(q.trim())),
    ).toHaveLength(3);
  });

  it('should stream several topics through events(topics:) as the Event interface', async () => {
    const request = await createRequest(t.app, acme.apiKey);
    const sub = subscribe(
      connect(acme.apiKey),
      `subscription ($id: ID) { events(topics: [ITEM_VERIFIED, REQUEST_UPDATED, REQUEST_CLOSED], requestId: $id) {
        __typename eventId topic organizationId createdAt
        ... on RequestEvent { request { id state } updated }
        ... on ItemEvent { item { id status } } } }`,
      { id: request.id },
    );
    await subscribed(++active);
    const api = client(t.app, acme.apiKey);
    await api.post(`/requests/${request.id}/items/${request.items[0].id}/verify`);
    await api.patch(`/requests/${request.id}`, { name: 'Renamed', due_date: '2030-01-01T00:00:00Z' });
    await api.post(`/requests/${request.id}/close`);
    const verified = (await sub.next()).data.events;
    expect(verified).toMatchObject({
      __typename: 'ItemEvent',
      topic: 'ITEM_VERIFIED',
      organizationId: acme.organizationId,
      item: { id: request.items[0].id, status: 'VERIFIED' },
    });
    const updated = (await sub.next()).data.events;
    expect(updated).toMatchObject({
      __typename: 'RequestEvent',
      topic: 'REQUEST_UPDATED',
      updated: ['name', 'due_date'],
    });
    const closed = (await sub.next()).data.events;
    expect(closed).toMatchObject({ topic: 'REQUEST_CLOSED', request: { state: 'CLOSED' }, updated: [] });
    expect(new Set([verified.eventId, updated.eventId, closed.eventId]).size).toBe(3);
  });

  it('should push documentUploaded, also as a DocumentEvent through events', async () => {
    const request = await createRequest(t.app, acme.apiKey);
    const uploaded = subscribe(
      connect(acme.apiKey),
      'subscription ($id: ID) { documentUploaded(requestId: $id) { name mimeType request { id } } }',
      { id: request.id },
    );
    const events = subscribe(
      connect(acme.apiKey),
      'subscription { events(topics: [DOCUMENT_UPLOADED]) { __typename topic ... on DocumentEvent { document { name } } } }',
    );
    await subscribed((active += 2));
    await submit(t, acme, request.id, request.items[0].id, '%PDF-1.4 fake but named', 'w2.pdf');
    expect((await uploaded.next()).data).toEqual({
      documentUploaded: { name: 'w2.pdf', mimeType: expect.any(String), request: { id: request.id } },
    });
    expect((await events.next()).data).toEqual({
      events: { __typename: 'DocumentEvent', topic: 'DOCUMENT_UPLOADED', document: { name: 'w2.pdf' } },
    });
  });

  it('should show a deleted request as it was', async () => {
    const request = await createRequest(t.app, acme.apiKey, { name: 'Doomed' });
    const sub = subscribe(connect(acme.apiKey), 'subscription { requestDeleted { id name } }');
    await subscribed(++active);
    await client(t.app, acme.apiKey).delete(`/requests/${request.id}`);
    expect((await sub.next()).data).toMatchObject({ requestDeleted: { id: request.id, name: 'Doomed' } });
  });

  it("should keep every subscriber to its organization's events and to what its role may read", async () => {
    const globex = await createTenant(t.db, 'Globex');
    const stranger = await createUser(t.app, acme.apiKey, { email: 'stranger.ws@acme.test' });
    const foreign = subscribe(connect(globex.apiKey), 'subscription { requestCreated { id name } }');
    const limited = subscribe(connect(stranger.apiKey), 'subscription { requestCreated { id name } }');
    await subscribed((active += 2));
    await createRequest(t.app, acme.apiKey, { name: 'Admin only' });
    await createRequest(t.app, stranger.apiKey, { name: 'Stranger own' });
    const own = await createRequest(t.app, globex.apiKey, { name: 'Globex own' });
    // Each sees its next visible event first: nothing of the others came before it.
    expect((await foreign.next()).data).toEqual({ requestCreated: { id: own.id, name: 'Globex own' } });
    expect((await limited.next()).data).toMatchObject({ requestCreated: { name: 'Stranger own' } });
  });

  it('should answer a broken or invalid document with an error message on a connection that stays open', async () => {
    const ws = connect(acme.apiKey);
    const broken = subscribe(ws, 'subscription { requestCreated { id ');
    const unknown = subscribe(ws, 'subscription { requestCreated { noSuchField } }');
    for (let waited = 0; (!broken.failure || !unknown.failure) && waited < 3000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect((broken.failure as Array<{ message: string }>)[0].message).toMatch(/Syntax Error/);
    expect((unknown.failure as Array<{ message: string }>)[0].message).toMatch(/noSuchField/);
    // The same broken document again is answered the same way (it is kept parsed, errors included).
    const again = subscribe(ws, 'subscription { requestCreated { noSuchField } }');
    for (let waited = 0; !again.failure && waited < 3000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(again.failure).toEqual(unknown.failure);
    const fine = subscribe(ws, 'subscription { requestCreated { name } }');
    await subscribed(++active);
    await createRequest(t.app, acme.apiKey, { name: 'After the errors' });
    expect((await fine.next()).data).toEqual({ requestCreated: { name: 'After the errors' } });
  });

  it('should send each subscriber of a group its own subscription id, whether ids are shared or not', async () => {
    // Raw sockets choose their ids (graphql-ws's client draws UUIDs): two say "1", one "x"; all three
    // join one group, whose result goes out as one message per distinct id, as text frames.
    const received: Array<{ id: string; binary: boolean; message: Record<string, any> }> = [];
    const open = (id: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(url, 'graphql-transport-ws');
        served.clients.push({ dispose: () => socket.terminate() });
        socket.on('open', () =>
          socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${acme.apiKey}` } })),
        );
        socket.on('error', reject);
        socket.on('message', (data, binary) => {
          const message = JSON.parse(data.toString());
          if (message.type === 'connection_ack') {
            socket.send(
              JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { requestCreated { name } }' } }),
            );
            resolve(socket);
          } else received.push({ id, binary, message });
        });
      });
    await Promise.all([open('1'), open('1'), open('x')]);
    active += 3;
    await subscribed(active);
    await createRequest(t.app, acme.apiKey, { name: 'Shared ids' });
    for (let waited = 0; received.length < 3 && waited < 5000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    const payload = { data: { requestCreated: { name: 'Shared ids' } } };
    expect(received.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: '1', binary: false, message: { id: '1', type: 'next', payload } },
      { id: '1', binary: false, message: { id: '1', type: 'next', payload } },
      { id: 'x', binary: false, message: { id: 'x', type: 'next', payload } },
    ]);
  });

  it(`should close a connection that sends a message over ${MAX_MESSAGE_BYTES} bytes with 1009`, async () => {
    const { client: ws, closes } = wsClient(url, { authorization: `Bearer ${acme.apiKey}` });
    subscribe(ws, `subscription { requestCreated { id } } # ${'x'.repeat(MAX_MESSAGE_BYTES)}`);
    for (let waited = 0; !closes.length && waited < 3000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(closes[0]?.code).toBe(1009);
    await ws.dispose();
  });
});
