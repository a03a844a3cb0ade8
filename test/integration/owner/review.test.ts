import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { linkToken, sha256Hex } from '../../../src/modules/recipients/recipient-link';
import { REQUEST_STATES, type RequestState } from '../../../src/modules/requests/request.enums';
import { OPEN_STATES, SUBMITTED_STATES } from '../../../src/modules/requests/request.states';

// The owner's side of the lifecycle (API-DECISIONS, States), through HTTP. Until the recipient API
// lands, a submission is staged with SQL: the state it leaves and `first_submitted_at`.

const RECIPIENTS = [
  { first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com' },
  { first_name: 'Bo', phone: '+15551234567', send_method: 'SMS' },
];

describe("the owner's review: verify, reject, send a draft, regenerate a link, owner_opened", () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
  });
  afterAll(() => t.close());

  const sql = <T = Record<string, any>>(statement: string, params: unknown[] = []) =>
    t.orm.em.fork().execute<T[]>(statement, params);

  /** Puts a request where a recipient's submission would leave it. */
  async function stage(
    requestId: string,
    state: RequestState,
    { submitted = true, items = 'COMPLETE' }: { submitted?: boolean; items?: string } = {},
  ) {
    await sql(
      `update request set state = ?, first_submitted_at = ${submitted ? 'now()' : 'null'}, owner_opened = false where id = ?`,
      [state, requestId],
    );
    await sql(`update request_item set status = ? where request_id = ?`, [items, requestId]);
  }

  /** The statements `call` runs on a submitted request of 2 items, then of 20. */
  async function statementsByItemCount(
    call: (requestId: string) => Promise<{ statusCode: number }>,
  ): Promise<number[]> {
    const counts: number[] = [];
    for (const n of [2, 20]) {
      const request = await createRequest(t.app, tenant.apiKey, {
        items: Array.from({ length: n }, (_, i) => ({ type: 'UPLOAD', name: `I${i}` })),
      });
      await stage(request.id, 'SUBMITTED');
      t.sql.reset();
      expect((await call(request.id)).statusCode).toBe(200);
      counts.push(t.sql.count);
    }
    return counts;
  }

  const events = (requestId: string) =>
    sql<{ topic: string; data: any; updated: string[] | null }>(
      'select topic, data, updated from event where request_id = ? order by seq',
      [requestId],
    );
  // The log is written by the events' consumer: what committed is in it once the jobs ran.
  const activity = async (requestId: string) =>
    (await t.app.jobs.runDue(), await api.get(`/requests/${requestId}/activity`)).json() as {
      action: string;
      actor: { type: string; id: string };
      details: any;
    }[];
  // Messages are queued by the events' consumer too: what committed has queued its messages once the jobs ran.
  const notifications = async (requestId: string) => (
    await t.app.jobs.runDue(),
    await sql<{ kind: string; recipient_id: string; channel: string; params: any }>(
      'select kind, recipient_id, channel, params from notification where request_id = ? order by created_at, channel',
      [requestId],
    )
  );
  /** Forgets the messages queued so far (the invitations of the creation), so that a test sees what follows. */
  const clearNotifications = async (requestId: string) => {
    await t.app.jobs.runDue();
    await sql('delete from notification where request_id = ?', [requestId]);
  };
  const itemStatuses = async (requestId: string) =>
    ((await api.get(`/requests/${requestId}/items`)).json() as { name: string; status: string }[]).map((i) => [
      i.name,
      i.status,
    ]);

  describe('POST /requests/{id}/verify, requestVerify', () => {
    it('should verify a submitted request and every item not verified yet, and emit request.verified', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      await stage(request.id, 'SUBMITTED');
      const response = await api.post(`/requests/${request.id}/verify`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: request.id, state: 'VERIFIED', status: 'VERIFIED', verified: true });
      expect(response.json().items.map((i: { verified: boolean }) => i.verified)).toEqual([true, true]);
      expect(await itemStatuses(request.id)).toEqual([
        ['W-2', 'VERIFIED'],
        ['Any dependents?', 'VERIFIED'],
      ]);
      const [last] = (await events(request.id)).slice(-1);
      expect(last.topic).toBe('request.verified');
      expect(last.data).toMatchObject({ id: request.id, state: 'VERIFIED', verified: true });
      expect((await activity(request.id))[0]).toMatchObject({
        action: 'request.verified',
        actor: { type: 'USER', id: tenant.userId },
        details: { item_ids: request.items.map((i: { id: string }) => i.id) },
      });
      // Verified is not waiting for review any more.
      expect((await api.post(`/requests/${request.id}/verify`)).json().detail).toEqual([
        { loc: ['body'], msg: 'verify is not allowed from request state VERIFIED', type: 'invalid_state' },
      ]);
    });

    it('should verify from each submitted state and refuse every other, changing nothing', async () => {
      const verify = `mutation ($id: ID!) { requestVerify(id: $id) { request { state verified } userErrors { field code message } } }`;
      for (const state of REQUEST_STATES) {
        const request = await createRequest(t.app, tenant.apiKey);
        await stage(request.id, state);
        const before = (await events(request.id)).length;
        const result = (await api.graphql(verify, { id: request.id })).data.requestVerify;
        if (SUBMITTED_STATES.includes(state)) {
          expect([state, result]).toEqual([state, { request: { state: 'VERIFIED', verified: true }, userErrors: [] }]);
        } else {
          expect([state, result]).toEqual([
            state,
            {
              request: null,
              userErrors: [
                {
                  field: ['input'],
                  code: 'INVALID_STATE',
                  message: `verify is not allowed from request state ${state}`,
                },
              ],
            },
          ]);
          expect((await api.get(`/requests/${request.id}`)).json().state).toBe(state);
          expect(await events(request.id)).toHaveLength(before);
          expect(await itemStatuses(request.id)).toEqual([
            ['W-2', 'COMPLETE'],
            ['Any dependents?', 'COMPLETE'],
          ]);
        }
      }
    });

    it('should move a submitted request to VERIFIED when its last unverified item is verified, not before', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const [w2, question] = request.items as { id: string }[];
      await stage(request.id, 'COMPLETE_AND_SUBMITTED');
      await api.post(`/requests/${request.id}/items/${w2.id}/verify`);
      expect((await api.get(`/requests/${request.id}`)).json().state).toBe('COMPLETE_AND_SUBMITTED');
      expect((await api.post(`/requests/${request.id}/items/${question.id}/verify`)).statusCode).toBe(200);
      expect((await api.get(`/requests/${request.id}`)).json()).toMatchObject({ state: 'VERIFIED', verified: true });
      expect((await events(request.id)).map((e) => e.topic).slice(-3)).toEqual([
        'item.verified',
        'item.verified',
        'request.verified',
      ]);
      expect((await activity(request.id)).slice(0, 2).map((e) => [e.action, e.details])).toEqual([
        ['request.verified', { item_ids: [] }],
        ['item.verified', { item_id: question.id }],
      ]);
    });

    it('should leave a request that waits for no review where it is when its items are verified', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      for (const item of request.items as { id: string }[])
        await api.post(`/requests/${request.id}/items/${item.id}/verify`);
      expect((await api.get(`/requests/${request.id}`)).json()).toMatchObject({
        state: 'INCOMPLETE_AND_LINK_SENT',
        verified: false,
      });
    });

    it('should run as many statements for 20 items as for 2', async () => {
      const [two, twenty] = await statementsByItemCount((id) => api.post(`/requests/${id}/verify`));
      expect(twenty).toBe(two);
    });
  });

  describe('POST /requests/{id}/reject, requestReject', () => {
    it('should send the request back: items not verified REJECTED, the rejection kept, each recipient asked for changes', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { recipients: RECIPIENTS });
      const [w2, question] = request.items as { id: string }[];
      await stage(request.id, 'SUBMITTED');
      await api.post(`/requests/${request.id}/items/${question.id}/verify`);
      await clearNotifications(request.id);

      const response = await api.post(`/requests/${request.id}/reject`, {
        message: '  The W-2 is cut off; please scan it again.  ',
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        state: 'REJECTED',
        rejected: true,
        rejection: {
          message: 'The W-2 is cut off; please scan it again.',
          item_ids: [w2.id],
          rejected_at: expect.any(String),
        },
      });
      expect(await itemStatuses(request.id)).toEqual([
        ['W-2', 'REJECTED'],
        ['Any dependents?', 'VERIFIED'],
      ]);

      const [last] = (await events(request.id)).slice(-1);
      expect(last.topic).toBe('request.rejected');
      expect(last.data.rejection).toEqual(body.rejection);
      expect((await activity(request.id))[0]).toMatchObject({
        action: 'request.rejected',
        actor: { type: 'USER', id: tenant.userId },
        details: { message: 'The W-2 is cut off; please scan it again.', item_ids: [w2.id] },
      });

      const queued = await notifications(request.id);
      expect(queued.map((n) => [n.kind, n.channel])).toEqual([
        ['CHANGES_REQUESTED', 'EMAIL'],
        ['CHANGES_REQUESTED', 'SMS'],
      ]);
      expect(queued[0].params).toMatchObject({
        message: 'The W-2 is cut off; please scan it again.',
        itemNames: ['W-2'],
        recipientFirstName: 'Ana',
      });
      // Rendered by their jobs, which ran above (kept: no SMTP_URL).
      const [mail] = ((await api.get(`/notifications?request_id=${request.id}`)).json() as any[]).filter(
        (n) => n.channel === 'EMAIL',
      );
      expect(mail.subject).toBe('Changes requested: Tax documents 2024');
      expect(mail.text).toContain('The W-2 is cut off; please scan it again.');
      expect(mail.text).toContain('Items to redo:');
      expect(mail.text).toContain(request.recipients[0].request_link);

      // Rejected is open again: a second rejection waits for a new submission.
      expect((await api.post(`/requests/${request.id}/reject`, { message: 'again' })).json().detail[0]).toMatchObject({
        type: 'invalid_state',
      });
    });

    it('should reject the named items only, verified ones included, and answer the rejection in GraphQL', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const [w2, question] = request.items as { id: string }[];
      await stage(request.id, 'PARTIALLY_SUBMITTED');
      await api.post(`/requests/${request.id}/items/${question.id}/verify`);
      const result = await api.graphql(
        `mutation ($id: ID!, $input: RequestRejectInput!) { requestReject(id: $id, input: $input) { request { state rejected rejection { message itemIds rejectedAt } } userErrors { field code } } }`,
        { id: request.id, input: { message: 'Answer again', itemIds: [question.id, question.id] } },
      );
      expect(result.data.requestReject).toEqual({
        request: {
          state: 'REJECTED',
          rejected: true,
          rejection: { message: 'Answer again', itemIds: [question.id], rejectedAt: expect.any(String) },
        },
        userErrors: [],
      });
      expect(await itemStatuses(request.id)).toEqual([
        ['W-2', 'COMPLETE'],
        ['Any dependents?', 'REJECTED'],
      ]);
      expect(w2.id).toBeDefined();
    });

    it("should refuse item ids that are not the request's, a missing or blank message, and every state but the submitted ones", async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const other = await createRequest(t.app, tenant.apiKey);
      await stage(request.id, 'SUBMITTED');
      const before = await events(request.id);

      const foreign = await api.post(`/requests/${request.id}/reject`, {
        message: 'x',
        item_ids: [request.items[0].id, other.items[0].id],
      });
      expect(foreign.statusCode).toBe(422);
      expect(foreign.json().detail).toEqual([
        { loc: ['body', 'item_ids', 1], msg: 'Names no item of this request', type: 'not_found' },
      ]);
      expect((await api.post(`/requests/${request.id}/reject`, {})).json().detail[0]).toMatchObject({
        loc: ['body', 'message'],
        type: 'missing',
      });
      expect((await api.post(`/requests/${request.id}/reject`, { message: '   ' })).json().detail[0]).toMatchObject({
        loc: ['body', 'message'],
        type: 'too_short',
      });
      expect((await api.get(`/requests/${request.id}`)).json()).toMatchObject({
        state: 'SUBMITTED',
        rejected: false,
        rejection: null,
      });
      expect(await events(request.id)).toHaveLength(before.length);

      for (const state of REQUEST_STATES.filter((s) => !SUBMITTED_STATES.includes(s))) {
        await stage(request.id, state);
        const response = await api.post(`/requests/${request.id}/reject`, { message: 'Redo' });
        expect([state, response.statusCode, response.json().detail]).toEqual([
          state,
          422,
          [{ loc: ['body'], msg: `reject is not allowed from request state ${state}`, type: 'invalid_state' }],
        ]);
      }
      for (const state of SUBMITTED_STATES) {
        await stage(request.id, state);
        expect([state, (await api.post(`/requests/${request.id}/reject`, { message: 'Redo' })).json().state]).toEqual([
          state,
          'REJECTED',
        ]);
      }
    });

    it('should run as many statements for 20 items as for 2', async () => {
      const [two, twenty] = await statementsByItemCount((id) =>
        api.post(`/requests/${id}/reject`, { message: 'Redo all' }),
      );
      expect(twenty).toBe(two);
    });
  });

  describe('drafts: draft on create, POST /requests/{id}/send, requestSend', () => {
    it('should create a draft without notifying, and invite every recipient when it is sent', async () => {
      const draft = await createRequest(t.app, tenant.apiKey, { draft: true, recipients: RECIPIENTS });
      expect(draft).toMatchObject({ state: 'PRE_LINK_GENERATED', status: 'PRE_LINK_GENERATED' });
      expect(await notifications(draft.id)).toEqual([]);

      const sent = await api.post(`/requests/${draft.id}/send`);
      expect(sent.statusCode).toBe(200);
      expect(sent.json().state).toBe('INCOMPLETE_AND_LINK_SENT');
      expect((await notifications(draft.id)).map((n) => [n.kind, n.channel])).toEqual([
        ['INVITATION', 'EMAIL'],
        ['INVITATION', 'SMS'],
      ]);
      const [last] = (await events(draft.id)).slice(-1);
      expect([last.topic, last.updated, last.data.state]).toEqual([
        'request.updated',
        ['state'],
        'INCOMPLETE_AND_LINK_SENT',
      ]);
      expect((await activity(draft.id)).map((e) => [e.action, e.details])).toEqual([
        ['request.sent', { updated: ['state'] }],
        ['request.created', {}],
      ]);
      expect((await api.post(`/requests/${draft.id}/send`)).json().detail).toEqual([
        {
          loc: ['body'],
          msg: 'send-draft is not allowed from request state INCOMPLETE_AND_LINK_SENT',
          type: 'invalid_state',
        },
      ]);
      expect(await notifications(draft.id)).toHaveLength(2);
    });

    it('should do the same through GraphQL', async () => {
      const created = await api.graphql(
        `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id state } userErrors { field } } }`,
        {
          input: {
            name: 'Draft',
            draft: true,
            items: [{ upload: { name: 'ID' } }],
            recipients: [{ email: 'cy@example.com' }],
          },
        },
      );
      const { id, state } = created.data.requestCreate.request;
      expect(state).toBe('PRE_LINK_GENERATED');
      const send = `mutation ($id: ID!) { requestSend(id: $id) { request { state } userErrors { code } } }`;
      expect((await api.graphql(send, { id })).data.requestSend).toEqual({
        request: { state: 'INCOMPLETE_AND_LINK_SENT' },
        userErrors: [],
      });
      expect((await api.graphql(send, { id })).data.requestSend).toEqual({
        request: null,
        userErrors: [{ code: 'INVALID_STATE' }],
      });
    });
  });

  describe('POST /requests/{id}/recipients/{recipient_id}/link, recipientLinkRegenerate', () => {
    const recipientsOf = (requestId: string) =>
      sql<{ id: string; email: string | null; token_hash: string; password_hash: string }>(
        'select id, email, token_hash, password_hash from recipient where request_id = ? order by position',
        [requestId],
      );

    it("should give the recipient a new link and password, the old link's token matching no more, and invite it alone", async () => {
      const request = await createRequest(t.app, tenant.apiKey, { recipients: RECIPIENTS });
      const [ana, bo] = await recipientsOf(request.id);
      const oldToken = request.recipients[0].request_link.split('/r/')[1];
      expect(sha256Hex(oldToken)).toBe(ana.token_hash);
      await clearNotifications(request.id);

      const response = await api.post(`/requests/${request.id}/recipients/${ana.id}/link`);
      expect(response.statusCode).toBe(200);
      const answer = response.json();
      expect(answer).toMatchObject({ auth: 'NONE', recipient: { first_name: 'Ana', email: 'ana@example.com' } });
      expect(answer.request_link).not.toBe(request.recipients[0].request_link);
      expect(answer.password).not.toBe(request.recipients[0].password);

      const [anaNow, boNow] = await recipientsOf(request.id);
      const newToken = answer.request_link.split('/r/')[1];
      expect(anaNow.token_hash).toBe(sha256Hex(newToken));
      expect(anaNow.token_hash).not.toBe(sha256Hex(oldToken));
      expect(anaNow.password_hash).toBe(sha256Hex(answer.password));
      expect(boNow).toEqual(bo);
      // What every read shows is the new link.
      expect((await api.get(`/requests/${request.id}`)).json().recipients[0].request_link).toBe(answer.request_link);
      expect(newToken).toBe(
        linkToken(
          t.config.secret,
          ana.id,
          (await sql<{ link_nonce: string }>('select link_nonce from recipient where id = ?', [ana.id]))[0].link_nonce,
        ),
      );

      expect((await api.get(`/requests/${request.id}`)).json().state).toBe('INCOMPLETE_AND_FRESHLY_GENERATED');
      expect((await notifications(request.id)).map((n) => [n.kind, n.recipient_id, n.channel])).toEqual([
        ['INVITATION', ana.id, 'EMAIL'],
      ]);
      const [last] = (await events(request.id)).slice(-1);
      expect([last.topic, last.updated]).toEqual(['request.updated', ['state', 'recipients']]);
      expect((await activity(request.id))[0]).toMatchObject({
        action: 'link.regenerated',
        details: { recipient_id: ana.id, updated: ['state', 'recipients'] },
      });
    });

    it('should keep the state of a request submitted before, and refuse one that is not open', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const [ana] = await recipientsOf(request.id);
      await stage(request.id, 'REJECTED');
      const regenerate = `mutation ($id: ID!, $requestId: ID) { recipientLinkRegenerate(id: $id, requestId: $requestId) {
        recipient { id requestLink } request { state } userErrors { code message } } }`;
      const kept = (await api.graphql(regenerate, { id: ana.id, requestId: request.id })).data.recipientLinkRegenerate;
      expect(kept).toMatchObject({ recipient: { id: ana.id }, request: { state: 'REJECTED' }, userErrors: [] });
      expect(sha256Hex(kept.recipient.requestLink.split('/r/')[1])).toBe(
        (await recipientsOf(request.id))[0].token_hash,
      );

      for (const state of REQUEST_STATES.filter((s) => !OPEN_STATES.includes(s))) {
        await stage(request.id, state);
        const before = await recipientsOf(request.id);
        const refused = (await api.graphql(regenerate, { id: ana.id })).data.recipientLinkRegenerate;
        expect([state, refused]).toEqual([
          state,
          {
            recipient: null,
            request: null,
            userErrors: [
              { code: 'INVALID_STATE', message: `regenerate-link is not allowed from request state ${state}` },
            ],
          },
        ]);
        expect(await recipientsOf(request.id)).toEqual(before);
      }
      for (const state of OPEN_STATES) {
        await stage(request.id, state, { submitted: false });
        const moved = (await api.graphql(regenerate, { id: ana.id })).data.recipientLinkRegenerate;
        expect([state, moved.request]).toEqual([state, { state: 'INCOMPLETE_AND_FRESHLY_GENERATED' }]);
      }
    });

    it("should take the contact id REST shows as the recipient's, and find no recipient of another request under this one", async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const other = await createRequest(t.app, tenant.apiKey);
      const [stranger] = await recipientsOf(other.id);
      expect(other.recipients[0].recipient.id).toBe(request.recipients[0].recipient.id);
      const byContact = await api.post(`/requests/${request.id}/recipients/${request.recipients[0].recipient.id}/link`);
      expect(byContact.statusCode).toBe(200);
      expect(sha256Hex(byContact.json().request_link.split('/r/')[1])).toBe(
        (await recipientsOf(request.id))[0].token_hash,
      );
      expect((await api.post(`/requests/${request.id}/recipients/${stranger.id}/link`)).json()).toEqual({
        detail: 'Recipient not found',
      });
      // The contact is the same person on both requests: under this one it names this one's recipient only.
      const [mine] = await recipientsOf(request.id);
      expect(mine.token_hash).not.toBe(stranger.token_hash);
      expect((await recipientsOf(other.id))[0]).toEqual(stranger);
    });
  });

  describe('owner_opened', () => {
    it('should turn true on the first read by a user after a submission, with one statement then and none after', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      t.sql.reset();
      expect((await api.get(`/requests/${request.id}`)).json().owner_opened).toBe(false);
      const unopened = t.sql.count;

      await stage(request.id, 'SUBMITTED');
      t.sql.reset();
      expect((await api.get(`/requests/${request.id}`)).json().owner_opened).toBe(true);
      // Its one statement, in a transaction of its own (begin, update, commit).
      expect(t.sql.count).toBe(unopened + 3);
      expect(t.sql.statements.filter((s) => s.startsWith('update request set owner_opened'))).toHaveLength(1);
      t.sql.reset();
      expect((await api.get(`/requests/${request.id}`)).json().owner_opened).toBe(true);
      expect(t.sql.count).toBe(unopened);

      await sql('update request set owner_opened = false where id = ?', [request.id]);
      const read = await api.graphql(`query ($id: ID!) { request(id: $id) { ownerOpened } }`, { id: request.id });
      expect(read.data.request.ownerOpened).toBe(true);
      expect((await sql('select owner_opened from request where id = ?', [request.id]))[0].owner_opened).toBe(true);
      // A read is no event.
      expect((await events(request.id)).map((e) => e.topic)).toEqual(['request.created']);
    });

    it("should turn true when a user's PATCH changes it (the answer shows the request)", async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      await stage(request.id, 'SUBMITTED');
      const patched = await api.patch(`/requests/${request.id}`, { name: 'Renamed after submission' });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({ name: 'Renamed after submission', owner_opened: true });
      expect((await sql('select name, owner_opened from request where id = ?', [request.id]))[0]).toEqual({
        name: 'Renamed after submission',
        owner_opened: true,
      });
    });
  });
});
