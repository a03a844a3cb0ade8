import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';
import { MAX_METADATA_VALUE } from '../../../src/modules/requests/request.limits';

const LIST = `
  query ($first: Int!) {
    requests(first: $first) {
      totalCount
      nodes {
        id name state percentComplete viewerCanUpdate viewerCanDelete
        owner { id email team { id } }
        template { id name items { id name } }
        items { id kind name status ... on QuestionItem { answer questionType } assignedTo { id email } }
        recipients { id email auth requestLink password contact { id owner { id } } }
        collaborators { id role user { id email } }
      }
    }
  }`;

describe('GraphQL requests', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  describe('statement count', () => {
    beforeAll(async () => {
      const colleague = await createUser(t.app, tenant.apiKey, { email: 'colleague@example.com' });
      const template = (await api.post('/templates', { name: 'T', items: [{ name: 'A', type: 'UPLOAD' }] })).json();
      for (let i = 0; i < 100; i++) {
        await createRequest(t.app, tenant.apiKey, {
          name: `Request ${i}`,
          template_id: i % 2 ? template.id : null,
          collaborators: [colleague.userId],
          recipients: [{ email: `r${i}@example.com` }, { phone: `+1555000${String(i).padStart(4, '0')}` }],
        });
      }
    });

    it('should run a fixed number of SQL statements for 1, 20 or 100 requests with all their relations', async () => {
      const run = async (first: number) => {
        t.sql.reset();
        const result = await api.graphql(LIST, { first });
        expect(result.errors).toBeUndefined();
        expect(result.data.requests.nodes).toHaveLength(first);
        expect(result.data.requests.nodes[first - 1].recipients).toHaveLength(2);
        // The same statements whatever the page size: only their lists of ids grow.
        return t.sql.statements
          .map((q) =>
            q
              .replace(/\(\?(, \?)*\)/g, '(…)')
              .replace(/'[^']*'/g, '…')
              .slice(0, 120),
          )
          .sort();
      };
      // Users come from the instance's cache once read (identity.loaders.ts): the first list reads
      // them, one statement for the owners and one for the collaborators' users.
      const cold = await run(100);
      const runs: Record<number, string[]> = {};
      for (const first of [1, 20, 100, 20]) runs[first] = await run(first);
      expect(cold.filter((q) => q.includes('from app_user'))).toHaveLength(2);
      expect(cold.filter((q) => !q.includes('from app_user'))).toEqual(runs[100]);
      // Page, count, items, recipients, collaborators, templates, template items, contacts: one statement each.
      expect(runs[1]).toEqual(runs[100]);
      expect(runs[20]).toEqual(runs[100]);
      expect(runs[100]).toHaveLength(8);
    });

    it('should answer a change from the rows its event read, with no statement after the commit', async () => {
      t.sql.reset();
      const created = await api.post('/requests', {
        name: 'Answered from the event',
        items: [
          { name: 'W-2', type: 'UPLOAD' },
          { name: 'Employer?', type: 'QUESTION' },
        ],
        recipients: [{ email: 'answer@example.com' }],
      });
      expect(created.statusCode).toBe(200);
      const statements = t.sql.statements.map((q) => q.trim().toLowerCase());
      expect(statements.indexOf('commit')).toBe(statements.length - 1);
      // The request, its contacts, recipients and items written, and its view (for the event and the answer) made from
      // the rows they answered: nothing read back, nothing of what it wrote nothing of (collaborators, attachments,
      // escalations), and nothing of the owner or team but their ids.
      expect(statements.filter((q) => q.startsWith('select'))).toEqual([]);
      // begin, the request, the contacts, the recipients, the items, the event, commit.
      expect(statements).toHaveLength(7);
      // What the answer shows is what a fresh read finds.
      expect((await api.get(`/requests/${created.json().id}`)).json()).toEqual(created.json());

      t.sql.reset();
      const updated = await api.patch(`/requests/${created.json().id}`, { notes: 'changed' });
      expect(updated.json().notes).toBe('changed');
      const patched = t.sql.statements.map((q) => q.trim().toLowerCase());
      expect(patched.pop()).toBe('commit');
      // The locked row, its update, the view's reads, the event.
      expect(patched).toHaveLength(9);
      expect((await api.get(`/requests/${created.json().id}`)).json()).toEqual(updated.json());

      // Nothing to change: no update and no event, the same answer, read in the transaction.
      t.sql.reset();
      const unchanged = await api.patch(`/requests/${created.json().id}`, { notes: 'changed' });
      expect(unchanged.statusCode).toBe(200);
      expect(unchanged.json()).toEqual(updated.json());
      const statementsOfUnchanged = t.sql.statements.map((q) => q.trim().toLowerCase());
      expect(statementsOfUnchanged.filter((q) => /^(update|with inserted)/.test(q))).toEqual([]);
      expect(statementsOfUnchanged.pop()).toBe('commit');
    });
  });

  describe('connections', () => {
    it('should page forward and backward with opaque cursors', async () => {
      const other = await createTenant(t.db);
      const otherApi = client(t.app, other.apiKey);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createRequest(t.app, other.apiKey, { name: `P${i}` })).id);
      const query = `query ($first: Int, $after: String, $last: Int, $before: String) {
        requests(first: $first, after: $after, last: $last, before: $before, orderBy: { field: CREATED_AT, direction: ASC }) {
          totalCount totalCountEstimated edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
      const page1 = (await otherApi.graphql(query, { first: 2 })).data.requests;
      expect(page1.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(ids.slice(0, 2));
      expect(page1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      expect(page1).toMatchObject({ totalCount: 5, totalCountEstimated: false });
      const page2 = (await otherApi.graphql(query, { first: 2, after: page1.pageInfo.endCursor })).data.requests;
      expect(page2.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(ids.slice(2, 4));
      const page3 = (await otherApi.graphql(query, { first: 2, after: page2.pageInfo.endCursor })).data.requests;
      expect(page3.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([ids[4]]);
      expect(page3.pageInfo.hasNextPage).toBe(false);
      const back = (await otherApi.graphql(query, { last: 2, before: page3.pageInfo.startCursor })).data.requests;
      expect(back.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(ids.slice(2, 4));
      expect(back.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
      const last = (await otherApi.graphql(query, { last: 1 })).data.requests;
      expect(last.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([ids[4]]);
    });

    it('should filter by states, owners and dates', async () => {
      const other = await createTenant(t.db);
      const otherApi = client(t.app, other.apiKey);
      const a = await createRequest(t.app, other.apiKey);
      const b = await createRequest(t.app, other.apiKey);
      await otherApi.post(`/requests/${b.id}/close`);
      const closed = await otherApi.graphql(`{ requests(filter: { states: [CLOSED] }) { nodes { id } } }`);
      expect(closed.data.requests.nodes).toEqual([{ id: b.id }]);
      const both = await otherApi.graphql(
        `{ requests(filter: { states: [CLOSED, INCOMPLETE_AND_LINK_SENT], ownerIds: ["${other.userId}"] }) { totalCount } }`,
      );
      expect(both.data.requests.totalCount).toBe(2);
      const none = await otherApi.graphql(`{ requests(filter: { createdAfter: "2999-01-01" }) { nodes { id } } }`);
      expect(none.data.requests.nodes).toEqual([]);
      expect(a.id).toBeDefined();
    });

    it('should search by name or by a recipient, case-insensitively, with LIKE characters taken literally', async () => {
      const other = await createTenant(t.db);
      const otherApi = client(t.app, other.apiKey);
      const lease = await createRequest(t.app, other.apiKey, {
        name: 'Lease 100% signed',
        recipients: [{ first_name: 'Chen', last_name: 'Wei', email: 'chen.wei@example.com' }],
      });
      const tax = await createRequest(t.app, other.apiKey, {
        name: 'Tax documents',
        recipients: [{ first_name: 'Ana', email: 'ana@example.com', phone: '+15551234567' }],
      });
      const search = async (text: string, extra = '') =>
        (
          await otherApi.graphql(
            `query ($text: String) { requests(filter: { search: $text${extra} }) { nodes { id } } }`,
            {
              text,
            },
          )
        ).data.requests.nodes.map((node: { id: string }) => node.id);
      expect(await search('lease')).toEqual([lease.id]);
      expect(await search('CHEN WEI')).toEqual([lease.id]);
      expect(await search('ana@EXAMPLE')).toEqual([tax.id]);
      expect(await search('5551234')).toEqual([tax.id]);
      expect(await search('100%')).toEqual([lease.id]);
      // `%` and `_` are the text's own characters, not wildcards.
      expect(await search('%')).toEqual([lease.id]);
      expect(await search('_')).toEqual([]);
      expect((await search('  ')).sort()).toEqual([lease.id, tax.id].sort());
      expect(await search('example', ', states: [CLOSED]')).toEqual([]);
      // Another organization's requests stay out of reach.
      expect(
        (await api.graphql(`{ requests(filter: { search: "Chen" }) { nodes { id } } }`)).data.requests.nodes,
      ).toEqual([]);
      const long = await otherApi.graphql(
        `query ($text: String) { requests(filter: { search: $text }) { nodes { id } } }`,
        {
          text: 'x'.repeat(201),
        },
      );
      expect(long.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('should refuse page sizes outside 1..100 and foreign cursors with BAD_USER_INPUT', async () => {
      for (const args of ['first: 0', 'first: 101', 'last: 500', 'after: "bm9wZQ"']) {
        const result = await api.graphql(`{ requests(${args}) { nodes { id } } }`);
        expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      }
    });
  });

  describe('mutations', () => {
    it('should create a request with a oneOf item input and return userErrors for bad input', async () => {
      const ok = await api.graphql(
        `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id name language items { kind name } } userErrors { field message code } } }`,
        {
          input: {
            name: 'GQL',
            language: 'PT',
            items: [{ upload: { name: 'ID card' } }, { question: { name: 'Why?' } }],
            recipients: [{ email: 'g@example.com' }],
          },
        },
      );
      expect(ok.data.requestCreate).toMatchObject({
        request: {
          name: 'GQL',
          language: 'PT',
          items: [
            { kind: 'UPLOAD', name: 'ID card' },
            { kind: 'QUESTION', name: 'Why?' },
          ],
        },
        userErrors: [],
      });

      const bad = await api.graphql(
        `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id } userErrors { field message code } } }`,
        { input: { name: '', recipients: [{ email: 'not-an-email' }], items: [], reminders: 400 } },
      );
      expect(bad.data.requestCreate.request).toBeNull();
      expect(bad.data.requestCreate.userErrors).toEqual(
        expect.arrayContaining([
          { field: ['input', 'name'], message: expect.any(String), code: 'TOO_SHORT' },
          {
            field: ['input', 'recipients', '0', 'email'],
            message: 'Input should be an email address',
            code: 'INVALID',
          },
          { field: ['input', 'reminders'], message: expect.any(String), code: 'OUT_OF_RANGE' },
        ]),
      );
    });

    it('should refuse an item input with two kinds (oneOf), on every execution', async () => {
      const document = `mutation ($input: RequestItemInput!, $id: ID!) { itemCreate(requestId: $id, input: $input) { item { id } userErrors { code } } }`;
      const request = await createRequest(t.app, tenant.apiKey);
      // mercurius compiles a document to JavaScript after its first use; the rule must hold both ways.
      for (let i = 0; i < 3; i++) {
        const result = await api.graphql(document, {
          id: request.id,
          input: { upload: { name: 'a' }, question: { name: 'b' } },
        });
        const refused = Boolean(result.errors?.length) || result.data?.itemCreate?.userErrors?.length > 0;
        expect(refused).toBe(true);
      }
      const items = (await api.get(`/requests/${request.id}/items`)).json();
      expect(items).toHaveLength(2);
    });

    it('should update, verify, close and delete through GraphQL', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const updated = await api.graphql(
        `mutation ($id: ID!) { requestUpdate(id: $id, input: { notes: "n", userMetadata: { a: "b" } }) { request { notes userMetadata } userErrors { code } } }`,
        { id: request.id },
      );
      expect(updated.data.requestUpdate).toEqual({ request: { notes: 'n', userMetadata: { a: 'b' } }, userErrors: [] });
      const verified = await api.graphql(
        `mutation ($id: ID!) { itemVerify(id: $id) { item { status verified verifiedAt } } }`,
        { id: request.items[0].id },
      );
      expect(verified.data.itemVerify.item).toMatchObject({
        status: 'VERIFIED',
        verified: true,
        verifiedAt: expect.any(String),
      });
      const closed = await api.graphql(`mutation ($id: ID!) { requestClose(id: $id) { request { state closedAt } } }`, {
        id: request.id,
      });
      expect(closed.data.requestClose.request.state).toBe('CLOSED');
      const deleted = await api.graphql(`mutation ($id: ID!) { requestDelete(id: $id) { deletedRequestId } }`, {
        id: request.id,
      });
      expect(deleted.data.requestDelete.deletedRequestId).toBe(request.id);
      const gone = await api.graphql(`query ($id: ID!) { request(id: $id) { id } node(id: $id) { id } }`, {
        id: request.id,
      });
      expect(gone.data).toEqual({ request: null, node: null });
    });

    it('should keep a "__proto__" key of userMetadata like any other key, from variables and from literals', async () => {
      // Built by JSON.parse, as a client's body is: an own key, not a prototype.
      const metadata = (value: string) =>
        JSON.parse(`{"a": "b", "__proto__": ${JSON.stringify(value)}}`) as Record<string, string>;
      const entries = (value: Record<string, string>) => Object.entries(value).sort();
      const create = `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id userMetadata } userErrors { field code } } }`;
      const input = (userMetadata: Record<string, string>) => ({
        name: 'Proto',
        items: [{ upload: { name: 'ID card' } }],
        recipients: [{ email: 'proto@example.com' }],
        userMetadata,
      });
      const created = await api.graphql(create, { input: input(metadata('created')) });
      expect(created.data.requestCreate.userErrors).toEqual([]);
      const id = created.data.requestCreate.request.id;
      expect(entries(created.data.requestCreate.request.userMetadata)).toEqual([
        ['__proto__', 'created'],
        ['a', 'b'],
      ]);
      const tooLong = await api.graphql(create, { input: input(metadata('x'.repeat(MAX_METADATA_VALUE + 1))) });
      expect(tooLong.data.requestCreate).toEqual({
        request: null,
        userErrors: [{ field: ['input', 'userMetadata', '__proto__'], code: 'TOO_LONG' }],
      });

      const update = `mutation ($id: ID!, $input: RequestUpdateInput!) { requestUpdate(id: $id, input: $input) { request { userMetadata } userErrors { field code } } }`;
      const refused = await api.graphql(update, {
        id,
        input: { userMetadata: metadata('x'.repeat(MAX_METADATA_VALUE + 1)) },
      });
      expect(refused.data.requestUpdate).toEqual({
        request: null,
        userErrors: [{ field: ['input', 'userMetadata', '__proto__'], code: 'TOO_LONG' }],
      });
      const updated = await api.graphql(update, { id, input: { userMetadata: metadata('updated') } });
      expect(entries(updated.data.requestUpdate.request.userMetadata)).toEqual([
        ['__proto__', 'updated'],
        ['a', 'b'],
      ]);
      const literal = await api.graphql(
        `mutation ($id: ID!) { requestUpdate(id: $id, input: { userMetadata: { __proto__: "literal" } }) { request { userMetadata } userErrors { code } } }`,
        { id },
      );
      expect(entries(literal.data.requestUpdate.request.userMetadata)).toEqual([['__proto__', 'literal']]);
      const read = await api.graphql(`query ($id: ID!) { request(id: $id) { userMetadata } }`, { id });
      expect(entries(read.data.request.userMetadata)).toEqual([['__proto__', 'literal']]);
      expect(Object.getPrototypeOf(read.data.request.userMetadata)).toBe(Object.prototype);
    });

    it('should answer NOT_FOUND as a coded top-level error', async () => {
      const result = await api.graphql(`mutation { requestClose(id: "not-a-uuid") { request { id } } }`);
      expect(result.errors?.[0]).toMatchObject({ message: 'Request not found', extensions: { code: 'NOT_FOUND' } });
    });
  });

  describe('node', () => {
    it('should resolve every record type by its REST id', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const template = (await api.post('/templates', { name: 'N' })).json();
      const ids = [
        tenant.organizationId,
        tenant.userId,
        request.id,
        request.items[0].id,
        request.items[1].id,
        template.id,
        request.recipients[0].recipient.id,
      ];
      const result = await api.graphql(
        `{ ${ids.map((id, i) => `n${i}: node(id: "${id}") { __typename id }`).join(' ')} }`,
      );
      expect(Object.values(result.data).map((n) => (n as { __typename: string }).__typename)).toEqual([
        'Organization',
        'User',
        'Request',
        'UploadItem',
        'QuestionItem',
        'Template',
        'Contact',
      ]);
    });
  });
});
