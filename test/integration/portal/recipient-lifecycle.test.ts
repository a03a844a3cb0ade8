import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { pdfBytes } from '../../support/files';
import { portal, requestWithLink, signedIn } from '../../support/portal';

// The whole loop through HTTP, owner → recipient → owner: the recipient's submissions move the request
// by the state table, a rejection reopens it, a resubmission is UPDATED_AND_SUBMITTED, a verification
// settles it; and the states in which a recipient may act or not.

describe('recipient lifecycle', () => {
  let t: TestApp;
  let tenant: Tenant;
  let owner: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    owner = client(t.app, tenant.apiKey);
  });
  afterAll(() => t.close());

  const topics = async (requestId: string) =>
    (
      await t.orm.em
        .fork()
        .execute<{ topic: string }[]>('select topic from event where request_id = ? order by seq', [requestId])
    ).map((e) => e.topic);

  it('should go submitted → rejected → redone → UPDATED_AND_SUBMITTED → VERIFIED, the recipient locked out after', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    const p = await signedIn(t.app, token);
    await p.upload(items[0].id, await pdfBytes('blurry'));
    expect((await p.submit()).json().state).toBe('SUBMITTED');

    const rejected = await owner.post(`/requests/${request.id}/reject`, {
      message: 'The scan is blurry',
      item_ids: [items[0].id],
    });
    expect(rejected.statusCode).toBe(200);
    const view = (await p.request()).json();
    expect(view).toMatchObject({
      state: 'REJECTED',
      can_change: true,
      rejection: { message: 'The scan is blurry', item_ids: [items[0].id] },
    });
    expect(view.items[0].status).toBe('REJECTED');

    const redone = await p.upload(items[0].id, await pdfBytes('sharp'));
    expect(redone.json().status).toBe('COMPLETE');
    const resubmitted = (await p.submit('Sharper now')).json();
    expect(resubmitted).toMatchObject({ state: 'UPDATED_AND_SUBMITTED', rejection: null, can_change: false });
    expect(resubmitted.submissions.map((s: { outcome: string }) => s.outcome)).toEqual([
      'REQUIRED_COMPLETE',
      'REQUIRED_COMPLETE',
    ]);

    expect((await owner.post(`/requests/${request.id}/verify`)).json().state).toBe('VERIFIED');
    const late = await p.answer(items[1].id, 'late');
    expect(late.statusCode).toBe(422);
    expect(late.json().detail[0].type).toBe('invalid_state');
    expect(await topics(request.id)).toEqual([
      'request.created',
      'document.uploaded',
      'item.updated',
      'request.submitted',
      'request.rejected',
      'document.uploaded',
      'item.updated',
      'request.submitted',
      'request.verified',
    ]);
  });

  it('should call a request with its required items done and an optional one untouched the same everywhere', async () => {
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    expect(items.map((item) => (item as { required?: boolean }).required)).toEqual([true, false]);
    const p = await signedIn(t.app, token);
    await p.upload(items[0].id, await pdfBytes());
    // Not complete: an item is undone (API-DECISIONS, States); percent_complete counts required items.
    expect((await p.submit()).json()).toMatchObject({ state: 'SUBMITTED', percent_complete: 100 });
    const page = await t.app.inject({ url: `/r/${token}`, headers: { authorization: `Bearer ${p.session}` } });
    expect(page.body).toContain('1 of 2 done');
    expect(await topics(request.id)).not.toContain('request.completed');
    // Verifying the request accepts what came, not the item that received nothing.
    expect((await owner.post(`/requests/${request.id}/verify`)).json().state).toBe('VERIFIED');
    const statuses = await t.db.rows<{ status: string }>(
      'select status from request_item where request_id = ? order by position',
      [request.id],
    );
    expect(statuses.map((item) => item.status)).toEqual(['VERIFIED', 'INCOMPLETE']);
  });

  it('should let the recipient act in every open state and in none of the others', async () => {
    const states = {
      INCOMPLETE_AND_FRESHLY_GENERATED: true,
      INCOMPLETE_AND_LINK_GENERATED: true,
      INCOMPLETE_AND_LINK_SENT: true,
      REJECTED: true,
      EXPIRATION_EMAIL_SENT: true,
      PARTIALLY_SUBMITTED: false,
      SUBMITTED: false,
      UPDATED_AND_SUBMITTED: false,
      COMPLETE_AND_SUBMITTED: false,
      VERIFIED: false,
    };
    const outcomes: Record<string, boolean> = {};
    for (const state of Object.keys(states)) {
      const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
      const p = await signedIn(t.app, token);
      await t.db.transaction((tx) => tx.execute('update request set state = ? where id = ?', [state, request.id]));
      outcomes[state] = (await p.answer(items[1].id, 'yes')).statusCode === 200;
    }
    expect(outcomes).toEqual(states);
  });

  it('should not open the link of a draft until it is sent', async () => {
    const { request, token } = await requestWithLink(t.app, tenant.apiKey, { draft: true });
    expect(request.state).toBe('PRE_LINK_GENERATED');
    expect((await portal(t.app, token).info()).statusCode).toBe(404);
    expect((await owner.post(`/requests/${request.id}/send`)).statusCode).toBe(200);
    expect((await portal(t.app, token).info()).statusCode).toBe(200);
  });
});
