import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { UNKNOWN_ID } from '../../support/fixtures';
import { pdfBytes } from '../../support/files';
import { portal, requestWithLink, signedIn } from '../../support/portal';

// The recipient API through HTTP: a link's sign-in info, a session, and what the recipient does with
// it, checked against the request's state, with the events and messages each change causes.

describe('recipient API', () => {
  let t: TestApp;
  let tenant: Tenant;
  let owner: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Acme');
    owner = client(t.app, tenant.apiKey);
  });
  afterAll(() => t.close());

  const events = async (requestId: string) =>
    t.orm.em
      .fork()
      .execute<{ topic: string; subject_type: string }[]>(
        'select topic, subject_type from event where request_id = ? order by seq',
        [requestId],
      );
  const requestState = async (requestId: string) => (await owner.get(`/requests/${requestId}`)).json();

  it('should describe the sign-in of a link and mark it opened once', async () => {
    const { request, token } = await requestWithLink(t.app, tenant.apiKey);
    expect(request.user_opened).toBe(false);
    const info = await portal(t.app, token).info();
    expect(info.statusCode).toBe(200);
    expect(info.json()).toEqual({
      request: {
        name: 'Tax documents 2024',
        organization_name: 'Acme',
        owner_name: expect.any(String),
        due_date: null,
        language: 'en-US',
      },
      recipient: { first_name: 'Ana' },
      sign_in: { steps: [], question_text: null, code_destination: null },
      branding: { primary_color: null, sender_name: null, support_email: null, logo_url: null },
    });
    expect((await requestState(request.id)).user_opened).toBe(true);
  });

  it('should answer 404 for a token that names no link, and 401 without a session', async () => {
    expect((await portal(t.app, 'x'.repeat(43)).info()).statusCode).toBe(404);
    expect((await portal(t.app, 'x'.repeat(43)).info()).json()).toEqual({ detail: 'Link not found' });
    const { token } = await requestWithLink(t.app, tenant.apiKey);
    const anonymous = await portal(t.app, token).request();
    expect(anonymous.statusCode).toBe(401);
    expect((await portal(t.app, token, 'grs_forged').request()).statusCode).toBe(401);
  });

  it('should open a session by cookie or bearer and show the request as the recipient sees it', async () => {
    const { request, token } = await requestWithLink(t.app, tenant.apiKey, { personal_message: 'Thanks!' });
    const signIn = await portal(t.app, token).signIn();
    expect(signIn.statusCode).toBe(200);
    const { session_token: session, expires_at } = signIn.json();
    expect(session).toMatch(/^grs_/);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    const cookie = signIn.headers['set-cookie'] as string;
    expect(cookie).toMatch(
      new RegExp(`^gather_session=${session}; Path=/r/${token}; Max-Age=\\d+; HttpOnly; SameSite=Strict`),
    );

    const byCookie = await t.app.inject({
      method: 'GET',
      url: `/r/${token}/api/request`,
      headers: { cookie: `gather_session=${session}` },
    });
    expect(byCookie.statusCode).toBe(200);
    const view = byCookie.json();
    expect(view).toMatchObject({
      id: request.id,
      name: 'Tax documents 2024',
      state: 'INCOMPLETE_AND_LINK_SENT',
      organization_name: 'Acme',
      personal_message: 'Thanks!',
      can_change: true,
      percent_complete: 0,
    });
    expect(view.items.map((i: { type: string; status: string }) => [i.type, i.status])).toEqual([
      ['UPLOAD', 'INCOMPLETE'],
      ['QUESTION', 'INCOMPLETE'],
    ]);
    expect((await portal(t.app, token, session).request()).json()).toEqual(view);
  });

  it('should take uploads, answers and not-applicable marks, and emit item events as the recipient', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    const [upload, question] = items;

    const uploaded = await p.upload(upload.id, await pdfBytes('W-2'), 'w2.pdf');
    expect(uploaded.statusCode).toBe(200);
    expect(uploaded.json()).toMatchObject({
      id: upload.id,
      status: 'COMPLETE',
      documents: [{ file_name: 'w2.pdf', content_type: 'application/pdf', mine: true }],
    });
    const documentId = uploaded.json().documents[0].id;
    const download = await p.get(`/documents/${documentId}`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const answered = await p.answer(question.id, '  Two  ');
    expect(answered.json()).toMatchObject({ status: 'COMPLETE', answer: 'Two' });
    expect((await p.answer(question.id, '   ')).statusCode).toBe(422);
    expect((await p.answer(upload.id, 'text')).statusCode).toBe(422);

    expect((await p.notApplicable(upload.id, true)).statusCode).toBe(422);
    const na = await p.notApplicable(question.id, true);
    expect(na.json()).toMatchObject({ is_na: true, status: 'COMPLETE' });

    // The owner's API shows the recipient's document, and the events name the recipient as actor.
    const owned = (await owner.get(`/requests/${request.id}/documents`)).json();
    expect(owned.map((d: { id: string }) => d.id)).toEqual([documentId]);
    expect((await events(request.id)).map((e) => e.topic)).toEqual([
      'request.created',
      'document.uploaded',
      'item.updated',
      'item.updated',
      'item.updated',
    ]);

    // Taking back the only document leaves the item to do again.
    expect((await p.deleteDocument(upload.id, documentId)).statusCode).toBe(204);
    const after = (await p.request()).json();
    expect(after.items[0]).toMatchObject({ status: 'INCOMPLETE', documents: [] });
    expect((await owner.get(`/requests/${request.id}/documents`)).json()).toEqual([]);
  });

  it('should keep each link to its own request: another request’s items and documents are not found', async () => {
    const mine = await requestWithLink(t.app, tenant.apiKey);
    const theirs = await requestWithLink(t.app, (await createTenant(t.db)).apiKey);
    const p = await signedIn(t.app, mine.token);
    expect((await p.answer(theirs.items[1].id, 'x')).statusCode).toBe(404);
    expect((await p.upload(theirs.items[0].id, 'bytes')).statusCode).toBe(404);
    expect((await p.answer(UNKNOWN_ID, 'x')).statusCode).toBe(404);
    // A session of one link opens no other link.
    expect((await portal(t.app, theirs.token, p.session).request()).statusCode).toBe(401);
    // Nothing was stored for the refused upload.
    expect(await t.orm.em.fork().count('Document', { request: theirs.request.id })).toBe(0);
  });

  it('should submit by the state table and refuse changes until a rejection reopens the request', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    // Required item missing: PARTIALLY_SUBMITTED.
    const partial = await p.submit('Most of it');
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toMatchObject({
      state: 'PARTIALLY_SUBMITTED',
      can_change: false,
      submissions: [{ outcome: 'PARTIAL', comment: 'Most of it' }],
    });
    const refused = await p.answer(items[1].id, 'late');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({ type: 'invalid_state' });
    expect((await p.submit()).statusCode).toBe(422);
    expect((await events(request.id)).map((e) => e.topic)).toEqual(['request.created', 'request.submitted']);
    const owned = await requestState(request.id);
    expect(owned).toMatchObject({ state: 'PARTIALLY_SUBMITTED', owner_opened: expect.any(Boolean) });
  });

  it('should move to SUBMITTED when every required item is done and to COMPLETE_AND_SUBMITTED when every item is', async () => {
    const first = await requestWithLink(t.app, tenant.apiKey);
    const p1 = await signedIn(t.app, first.token);
    await p1.upload(first.items[0].id, await pdfBytes());
    expect((await p1.submit()).json().state).toBe('SUBMITTED');

    const second = await requestWithLink(t.app, tenant.apiKey);
    const p2 = await signedIn(t.app, second.token);
    await p2.upload(second.items[0].id, await pdfBytes());
    await p2.answer(second.items[1].id, 'None');
    expect((await p2.submit()).json().state).toBe('COMPLETE_AND_SUBMITTED');
    expect((await events(second.request.id)).map((e) => e.topic).slice(-2)).toEqual([
      'request.submitted',
      'request.completed',
    ]);
    // The owner is told.
    const notices = await t.orm.em
      .fork()
      .execute<{ kind: string; user_id: string }[]>(
        'select kind, user_id from notification where request_id = ? and user_id is not null',
        [second.request.id],
      );
    expect(notices).toEqual([{ kind: 'REQUEST_COMPLETED', user_id: tenant.userId }]);
  });

  it('should refuse a partial submission when the request requires a complete one, and comments when disabled', async () => {
    const { token } = await requestWithLink(t.app, tenant.apiKey, {
      require_complete_submission: true,
      disable_submission_comments: true,
    });
    const p = await signedIn(t.app, token);
    const refused = await p.submit();
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0].msg).toMatch(/W-2/);
    expect((await p.submit('hello')).statusCode).toBe(422);
  });

  it('should refuse a closed request: 410 for the link, 422 invalid_state for changes', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    expect((await owner.post(`/requests/${request.id}/close`)).statusCode).toBe(200);
    expect((await portal(t.app, token).info()).statusCode).toBe(410);
    expect((await portal(t.app, token).signIn()).statusCode).toBe(410);
    expect((await p.request()).statusCode).toBe(410);
    const answer = await p.answer(items[1].id, 'x');
    expect(answer.statusCode).toBe(422);
    expect(answer.json().detail[0].type).toBe('invalid_state');
  });

  it('should give a recipient session its GraphQL operations and nothing else', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    const view = await p.graphql('{ recipientRequest { id state items { id kind status } } }');
    expect(view.data.recipientRequest).toMatchObject({ id: request.id, state: 'INCOMPLETE_AND_LINK_SENT' });
    const answered = await p.graphql(
      'mutation ($input: RecipientAnswerInput!) { recipientAnswer(input: $input) { item { status answer } userErrors { code } } }',
      {
        input: { itemId: items[1].id, answer: 'Yes' },
      },
    );
    expect(answered.data.recipientAnswer).toEqual({ item: { status: 'COMPLETE', answer: 'Yes' }, userErrors: [] });

    const other = await p.graphql(`{ request(id: "${request.id}") { id } }`);
    expect(other.errors[0].extensions.code).toBe('FORBIDDEN');
    const rest = await t.app.inject({
      method: 'GET',
      url: `/requests/${request.id}`,
      headers: { authorization: `Bearer ${p.session}` },
    });
    expect(rest.statusCode).toBe(403);
    const byKey = await owner.graphql('{ recipientRequest { id } }');
    expect(byKey.errors![0].extensions!.code).toBe('FORBIDDEN');
    expect((await owner.get(`/r/${token}/api/request`)).statusCode).toBe(401);
  });
});
