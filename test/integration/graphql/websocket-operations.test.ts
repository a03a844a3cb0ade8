import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { DEFAULT_MAX_QUERY_ALIASES, MAX_QUERY_DEPTH } from '../../../src/kernel/limits';
import { client, productionInstance, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { listeningGraphqlApp, operation as run, untilSubscribed, type ListeningGraphqlApp } from '../../support/ws';

// Queries and mutations over graphql-ws run as over HTTP (an operation's whole context, its errors
// coded or masked), refusals are coded errors, and a subscriber cut off for not reading is told why.

describe('GraphQL operations over WebSocket', () => {
  let served: ListeningGraphqlApp;
  let t: TestApp;
  let acme: Tenant;
  let url: string;

  beforeAll(async () => {
    served = await listeningGraphqlApp();
    ({ t, acme, url } = served);
  });
  afterAll(() => served.close());
  const connect = (key: string, at?: string) => served.connect(key, at);

  it('should answer a query as HTTP answers it', async () => {
    const query = '{ viewer { email role } organization { name } }';
    const overHttp = await client(t.app, acme.apiKey).graphql(query);
    expect(await run(connect(acme.apiKey), query)).toEqual({ result: overHttp });
    expect(overHttp.data.organization.name).toBe('Acme');
  });

  it('should run a mutation in its transaction, as over HTTP', async () => {
    const ws = connect(acme.apiKey);
    const created = await run(
      ws,
      'mutation ($name: String!) { teamCreate(input: { name: $name }) { team { id name } } }',
      {
        name: 'Over WebSocket',
      },
    );
    expect(created.result).toEqual({
      data: { teamCreate: { team: { id: expect.any(String), name: 'Over WebSocket' } } },
    });
    const { data } = await client(t.app, acme.apiKey).graphql('{ organization { teams { id name } } }');
    expect(data.organization.teams).toContainEqual(created.result!.data.teamCreate.team);
  });

  it("should code an operation's errors as HTTP does", async () => {
    const ws = connect(acme.apiKey);
    const forbidden = await run(ws, '{ recipientRequest { id } }');
    expect(forbidden.result!.errors).toEqual([
      expect.objectContaining({ message: expect.any(String), extensions: { code: 'FORBIDDEN' } }),
    ]);
    const badVariable = await run(ws, 'query ($first: Int) { requests(first: $first) { totalCount } }', {
      first: 'many',
    });
    expect(badVariable.result!.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })]);
  });

  it('should refuse a broken document, an invalid one and those over a limit with coded errors', async () => {
    const ws = connect(acme.apiKey);
    const nested = (rounds: number): string =>
      rounds === 0 ? 'id' : `organization { users(first: 1) { nodes { ${nested(rounds - 1)} } } }`;
    const [broken, invalid, aliased, deep] = await Promise.all([
      run(ws, '{ viewer { id '),
      run(ws, '{ viewer { noSuchField } }'),
      run(
        ws,
        `{ ${Array.from({ length: DEFAULT_MAX_QUERY_ALIASES + 1 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`,
      ),
      // Three levels per round: deeper than MAX_QUERY_DEPTH, as the HTTP test's.
      run(ws, `{ viewer { ${nested(Math.ceil(MAX_QUERY_DEPTH / 3))} } }`),
    ]);
    expect(broken.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Syntax Error/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
    expect(invalid.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/noSuchField/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
    expect(aliased.errors).toEqual([
      expect.objectContaining({
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'aliases', max: DEFAULT_MAX_QUERY_ALIASES },
      }),
    ]);
    expect(deep.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'depth', max: MAX_QUERY_DEPTH } }),
    ]);
  });

  it('should suggest no names of the schema where introspection is off', async () => {
    const production = await productionInstance(t);
    try {
      await production.listen({ port: 0, host: '127.0.0.1' });
      const at = `ws://127.0.0.1:${(production.server.address() as AddressInfo).port}/graphql`;
      const query = '{ viewer { emial } }';
      const [there, refused] = [await run(connect(acme.apiKey), query), await run(connect(acme.apiKey, at), query)];
      expect(there.errors![0].message).toBe('Cannot query field "emial" on type "User". Did you mean "email"?');
      expect(refused.errors).toEqual([
        expect.objectContaining({
          message: 'Cannot query field "emial" on type "User".',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ]);
    } finally {
      await Promise.all(served.clients.splice(0).map((c) => c.dispose()));
      await production.close();
    }
  });

  it('should end a subscriber that stopped reading with RATE_LIMITED, then complete it', async () => {
    const request = await createRequest(t.app, acme.apiKey);
    const held = t.app.subscriptions.subscriberCount;
    // Every event goes to each of these subscriptions as a message of its own, each about 150 KB.
    const notes = 'n'.repeat(9_990);
    const selection = Array.from({ length: 15 }, (_, i) => `n${i}: notes`).join(' ');
    const query = `subscription ($id: ID) { requestUpdated(requestId: $id) { ${selection} } }`;
    const ids = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const messages: Array<{ id?: string; type: string; payload?: any }> = [];
    const socket = new WebSocket(url, 'graphql-transport-ws');
    served.clients.push({ dispose: () => socket.terminate() });
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'connection_ack') {
        for (const id of ids)
          socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { id: request.id } } }));
      } else messages.push(message);
    });
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${acme.apiKey}` } })),
    );
    await untilSubscribed(() => t.app.subscriptions.subscriberCount, held + ids.length);
    // The client reads nothing more: what the server sends waits, in the kernel's buffers, then in the server's.
    socket.pause();
    const api = client(t.app, acme.apiKey);
    for (let change = 0; t.app.subscriptions.subscriberCount > held && change < 50; change++)
      expect((await api.patch(`/requests/${request.id}`, { notes: `${change} ${notes}` })).statusCode).toBe(200);
    expect(t.app.subscriptions.subscriberCount).toBe(held);
    socket.resume();
    for (
      let waited = 0;
      messages.filter((m) => m.type === 'complete').length < ids.length && waited < 10_000;
      waited += 50
    )
      await new Promise((r) => setTimeout(r, 50));
    const ends = messages.filter((m) => m.type !== 'next' || m.payload.errors);
    expect(ends.filter((m) => m.type === 'error')).toEqual([]);
    const cutOff = ends.filter((m) => m.type === 'next');
    expect(cutOff.length).toBeGreaterThan(0);
    for (const message of cutOff) {
      expect(message.payload).toEqual({
        errors: [
          {
            message: expect.stringMatching(
              /^More than \d+ bytes of events waited for this subscriber; subscribe again$/,
            ),
            extensions: { code: 'RATE_LIMITED' },
          },
        ],
      });
    }
    expect(new Set(ends.filter((m) => m.type === 'complete').map((m) => m.id))).toEqual(new Set(ids));
  }, 60_000);
});
