import { isDeepStrictEqual } from 'node:util';
import { Client } from 'pg';
import { restRequest } from '../../src/modules/requests/request.rest-shapes';
import {
  createBody,
  GET_QUERY,
  LIST_QUERY,
  PEER_LIST_QUERY,
  REST_LIST_DOCUMENT,
  REST_LIST_VARIABLES,
} from './documents';
import type { Target } from './load';
import type { ServerName, ServerProcess } from './servers';

/** One server answering one kind of request. */
export type Contender = { key: string; label: string; server: ServerName; target: Target };

/** Contenders measured in alternation (A, B, A, B), so they see the same machine. */
export type Group = {
  key: string;
  title: string;
  contenders: Contender[];
  check: (servers: Servers, apiKey: string, dbUrl: string) => Promise<string>;
};

/** A figure of the report: the ratio of two contenders of a group, and its target. */
export type Comparison = {
  name: string;
  group: string;
  ours: string;
  baseline: string;
  baselineName: string;
  target: number;
  /** What the ratio compares: throughput (ours ÷ baseline) by default, or the RSS under the load (baseline ÷ ours). */
  of?: 'rss';
};

export type Servers = Record<ServerName, ServerProcess>;

const prefix = (start: string) => (body: string) => body.startsWith(start) && !body.includes('"errors":[');
const graphql = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });
const cycle = <T>(list: T[]) => {
  let i = 0;
  return () => list[i++ % list.length];
};

async function call(
  server: ServerProcess,
  apiKey: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${server.name} ${method} ${path}: HTTP ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

function same(what: string, a: unknown, b: unknown): void {
  if (!isDeepStrictEqual(a, b)) {
    throw new Error(
      `${what}: the two answers differ, so the baseline would not be doing the same work.\n${JSON.stringify(a).slice(0, 600)}\n${JSON.stringify(b).slice(0, 600)}`,
    );
  }
}

/** The shape of a JSON value: its keys and the types of its leaves (ids and dates differ between two creations). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  return value === null ? 'null' : typeof value;
}

export function buildGroups(
  requestIds: string[],
  organizationId: string,
): { groups: Group[]; comparisons: Comparison[] } {
  const listBody = graphql(LIST_QUERY, { first: 20 });
  const peerListBody = graphql(PEER_LIST_QUERY, { organizationId, first: 20 });
  const getBodies = requestIds.map((id) => graphql(GET_QUERY, { id }));
  const getPaths = requestIds.map((id) => `/requests/${id}`);
  const restDocumentBody = graphql(REST_LIST_DOCUMENT, REST_LIST_VARIABLES);
  const created = (tag: string) => {
    let n = 0;
    const run = `${tag}${Date.now().toString(36)}`;
    return () => ({ body: JSON.stringify(createBody(++n, run)) });
  };

  const groups: Group[] = [
    {
      key: 'list',
      title: 'list 20 requests',
      contenders: [
        {
          key: 'ours-list',
          label: 'Gather GraphQL',
          server: 'ours',
          target: {
            method: 'POST',
            path: '/graphql',
            body: listBody,
            verify: prefix('{"data":{"requests":{"nodes":[{'),
          },
        },
        {
          key: 'apollo-list',
          label: 'Apollo Server 5',
          server: 'apollo',
          target: {
            method: 'POST',
            path: '/graphql',
            body: listBody,
            verify: prefix('{"data":{"requests":{"nodes":[{'),
          },
        },
        {
          key: 'bare-list',
          label: 'bare Fastify + pg',
          server: 'bare',
          target: { method: 'GET', path: '/requests?first=20', verify: prefix('{"data":{"requests":{"nodes":[{') },
        },
        {
          key: 'postgraphile-list',
          label: 'PostGraphile 4',
          server: 'postgraphile',
          target: {
            method: 'POST',
            path: '/graphql',
            body: peerListBody,
            verify: prefix('{"data":{"allRequests":{"nodes":[{'),
          },
        },
      ],
      async check(servers, apiKey) {
        const ours = await call(servers.ours, apiKey, 'POST', '/graphql', listBody);
        same('GraphQL list: Gather vs Apollo', ours, await call(servers.apollo, apiKey, 'POST', '/graphql', listBody));
        same('GraphQL list: Gather vs bare', ours, await call(servers.bare, apiKey, 'GET', '/requests?first=20'));
        // PostGraphile names fields its own way and computes no percentComplete: the same records,
        // fields and values, renamed.
        const peerAnswer = await call(servers.postgraphile, apiKey, 'POST', '/graphql', peerListBody);
        if (peerAnswer.errors)
          throw new Error(`PostGraphile answered errors: ${JSON.stringify(peerAnswer.errors).slice(0, 600)}`);
        const peer = peerAnswer.data.allRequests.nodes.map((r: any) => ({
          id: r.id,
          name: r.name,
          state: r.state,
          owner: r.appUserByOwnerId,
          items: r.requestItemsByRequestId.nodes.map(({ type, ...item }: any) => ({ kind: type, ...item })),
          recipients: r.recipientsByRequestId.nodes.map((recipient: any) => recipient.id),
        }));
        const gather = ours.data.requests.nodes.map((r: any) => ({
          id: r.id,
          name: r.name,
          state: r.state,
          owner: r.owner,
          items: r.items,
          recipients: r.recipients.map((recipient: any) => recipient.id),
        }));
        same('GraphQL list: Gather vs PostGraphile (the same requests, owners, items and recipients)', gather, peer);
        return `same JSON from Gather, Apollo and bare, the same records from PostGraphile (${ours.data.requests.nodes.length} requests)`;
      },
    },
    {
      key: 'get',
      title: 'get one request by id',
      contenders: [
        {
          key: 'ours-get',
          label: 'Gather GraphQL',
          server: 'ours',
          target: {
            method: 'POST',
            path: '/graphql',
            body: getBodies[0],
            next: ((b) => () => ({ body: b() }))(cycle(getBodies)),
            verify: prefix('{"data":{"request":{"id"'),
          },
        },
        {
          key: 'bare-get',
          label: 'bare Fastify + pg',
          server: 'bare',
          target: {
            method: 'GET',
            path: getPaths[0],
            next: ((p) => () => ({ path: p() }))(cycle(getPaths)),
            verify: prefix('{"data":{"request":{"id"'),
          },
        },
      ],
      async check(servers, apiKey) {
        for (const i of [0, 1, Math.floor(requestIds.length / 2), requestIds.length - 1]) {
          same(
            `GraphQL get ${requestIds[i]}: Gather vs bare`,
            await call(servers.ours, apiKey, 'POST', '/graphql', getBodies[i]),
            await call(servers.bare, apiKey, 'GET', getPaths[i]),
          );
        }
        return `same JSON from both for 4 requests; the load cycles through ${requestIds.length} ids`;
      },
    },
    {
      key: 'rest',
      title: 'REST list vs its GraphQL query',
      contenders: [
        {
          key: 'ours-rest-list',
          label: 'Gather REST',
          server: 'ours',
          target: { method: 'GET', path: '/requests?limit=20', verify: prefix('[{"id"') },
        },
        {
          key: 'ours-rest-graphql',
          label: 'Gather GraphQL (RequestList)',
          server: 'ours',
          target: {
            method: 'POST',
            path: '/graphql',
            body: restDocumentBody,
            verify: prefix('{"data":{"requests":{"nodes":[{'),
          },
        },
      ],
      async check(servers, apiKey) {
        const rest = await call(servers.ours, apiKey, 'GET', '/requests?limit=20');
        const viaGraphql = await call(servers.ours, apiKey, 'POST', '/graphql', restDocumentBody);
        same(
          'REST GET /requests vs the RequestList document mapped by restRequest',
          rest,
          JSON.parse(JSON.stringify(viaGraphql.data.requests.nodes.map(restRequest))),
        );
        return `the REST body is the GraphQL result mapped by the row (${rest.length} requests)`;
      },
    },
    {
      key: 'create',
      title: 'create a request (3 items, 2 recipients)',
      contenders: [
        {
          key: 'ours-create',
          label: 'Gather REST',
          server: 'ours',
          target: { method: 'POST', path: '/requests', next: created('o'), verify: prefix('{"id"') },
        },
        {
          key: 'bare-create',
          label: 'bare Fastify + pg',
          server: 'bare',
          target: { method: 'POST', path: '/requests', next: created('b'), verify: prefix('{"id"') },
        },
      ],
      async check(servers, apiKey, dbUrl) {
        const ours = await call(servers.ours, apiKey, 'POST', '/requests', JSON.stringify(createBody(0, 'check-o')));
        const bare = await call(servers.bare, apiKey, 'POST', '/requests', JSON.stringify(createBody(0, 'check-b')));
        same('POST /requests: shape of the answer, Gather vs bare', shape(ours), shape(bare));
        const client = new Client({ connectionString: dbUrl });
        await client.connect();
        try {
          const { rows: outbox } = await client.query(`select to_regclass('public.event') is not null as present`);
          const events = outbox[0].present
            ? `, (select count(*) from event where subject_id = $1 and topic = 'request.created')::int as events`
            : '';
          const rows = async (id: string) =>
            (
              await client.query(
                `select (select count(*) from request where id = $1)::int as requests, (select count(*) from request_item where request_id = $1)::int as items,
                        (select count(*) from recipient where request_id = $1)::int as recipients,
                        (select count(distinct contact_id) from recipient where request_id = $1)::int as contacts${events}`,
                [id],
              )
            ).rows[0];
          const stored = await rows(ours.id);
          same('POST /requests: rows stored, Gather vs bare', stored, await rows(bare.id));
          return `same JSON shape and the same rows stored (${Object.entries(stored)
            .map(([table, n]) => `${table}: ${n}`)
            .join(', ')})`;
        } finally {
          await client.end();
        }
      },
    },
  ];
  const comparisons: Comparison[] = [
    {
      name: 'GraphQL: list 20 requests with items, recipients, owner',
      group: 'list',
      ours: 'ours-list',
      baseline: 'apollo-list',
      baselineName: 'Apollo Server 5 (same schema and resolvers)',
      target: 2,
    },
    {
      name: 'GraphQL: list 20 requests (the same query)',
      group: 'list',
      ours: 'ours-list',
      baseline: 'bare-list',
      baselineName: 'bare Fastify + pg (same SQL, same JSON)',
      target: 0.85,
    },
    // The issue's memory target: RSS under the list load at most 1.5x the bare server's (ratio bare ÷ ours >= 1/1.5).
    {
      name: 'Memory: RSS under the list load',
      group: 'list',
      ours: 'ours-list',
      baseline: 'bare-list',
      baselineName: 'bare Fastify + pg (same SQL, same JSON)',
      target: Math.round((1 / 1.5) * 1000) / 1000,
      of: 'rss',
    },
    {
      name: 'GraphQL: list 20 requests (the same page, in its own schema)',
      group: 'list',
      ours: 'ours-list',
      baseline: 'postgraphile-list',
      baselineName: 'PostGraphile 4.14 (one SQL statement building the JSON, no tenancy)',
      target: 1.5,
    },
    {
      name: 'GraphQL: get one request by id',
      group: 'get',
      ours: 'ours-get',
      baseline: 'bare-get',
      baselineName: 'bare Fastify + pg (same SQL, same JSON)',
      target: 0.9,
    },
    {
      name: 'REST GET /requests?limit=20',
      group: 'rest',
      ours: 'ours-rest-list',
      baseline: 'ours-rest-graphql',
      baselineName: 'the GraphQL query it maps to (RequestList)',
      target: 0.9,
    },
    {
      name: 'REST POST /requests (3 items, 2 recipients)',
      group: 'create',
      ours: 'ours-create',
      baseline: 'bare-create',
      baselineName: 'bare Fastify + pg insert in one transaction',
      target: 0.5,
    },
  ];
  return { groups, comparisons };
}
