import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';
import { requestWithLink, signedIn } from '../../support/portal';

const DAY = 86_400_000;
const future = (days: number) => new Date(Date.now() + days * DAY).toISOString();

describe('reminders, scheduled reminders, escalations and duplicates through the API', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let offsetMs = 0;
  const at = (days: number, minutes = 1) => {
    offsetMs = days * DAY + minutes * 60_000;
  };
  const run = () => t.app.jobs.runDue();
  const api = () => client(t.app, tenant.apiKey);
  const notifications = (requestId: string, kind: string) =>
    t.orm.em
      .fork()
      .execute<{ address: string; channel: string; params: Record<string, unknown> }[]>(
        'select address, channel, params from notification where request_id = ? and kind = ? order by created_at',
        [requestId, kind],
      );

  beforeAll(async () => {
    t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    tenant = await createTenant(t.db);
    other = await createTenant(t.db);
  });
  afterAll(() => t.close());
  beforeEach(() => {
    offsetMs = 0;
  });

  describe('reminders', () => {
    it('should remind now those who have not submitted, and list what was sent with the next one due', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        reminders: 3,
        recipients: [
          { first_name: 'Ana', email: 'ana@example.com', auth_method: { type: 'NONE' } },
          { first_name: 'Bo', phone: '+15551234567', auth_method: { type: 'NONE' } },
        ],
      });
      // Its creation's event plans the periodic reminder, once committed.
      await run();
      const sent = await api().post(`/requests/${request.id}/reminders`, { message: 'Only the W-2 is missing' });
      expect(sent.statusCode).toBe(200);
      expect(sent.json()).toMatchObject({
        request_id: request.id,
        kind: 'MANUAL',
        message: 'Only the W-2 is missing',
        sent_by: tenant.userId,
        recipients: [
          {
            status: 'SENT',
            messages: [{ channel: 'EMAIL', address: 'ana@example.com', status: 'PENDING', fallback_for: null }],
          },
          { status: 'SENT', messages: [{ channel: 'SMS', address: '+15551234567', status: 'PENDING' }] },
        ],
      });
      const [mail] = await notifications(request.id, 'REMINDER');
      expect(mail.params).toMatchObject({ message: 'Only the W-2 is missing', requestName: 'Tax documents 2024' });

      const list = await api().get(`/requests/${request.id}/reminders`);
      expect(list.statusCode).toBe(200);
      expect(list.json().map((r: { id: string }) => r.id)).toEqual([sent.json().id]);
      expect(new Date(list.headers['x-next-reminder-at'] as string).getTime()).toBeGreaterThan(Date.now() + 2 * DAY);

      const graphql = await api().graphql(
        `query ($id: ID!) { request(id: $id) { nextReminderAt sentReminders(first: 5) { nodes { kind recipients { recipient { firstName } status } } } } }`,
        {
          id: request.id,
        },
      );
      expect(graphql.data.request.sentReminders.nodes).toEqual([
        {
          kind: 'MANUAL',
          recipients: [
            { recipient: { firstName: 'Ana' }, status: 'SENT' },
            { recipient: { firstName: 'Bo' }, status: 'SENT' },
          ],
        },
      ]);
      expect(graphql.data.request.nextReminderAt).toBe(list.headers['x-next-reminder-at']);
    });

    it('should refuse to remind a draft or a closed request (422 invalid_state), and a too long message', async () => {
      const draft = await createRequest(t.app, tenant.apiKey, { draft: true });
      const refused = await api().post(`/requests/${draft.id}/reminders`, {});
      expect(refused.statusCode).toBe(422);
      expect(refused.json().detail[0].type).toBe('invalid_state');
      const long = await api().post(`/requests/${draft.id}/reminders`, { message: 'x'.repeat(2001) });
      expect(long.statusCode).toBe(422);
      expect(long.json().detail[0].loc).toEqual(['body', 'message']);
      await run();
      expect((await api().get(`/requests/${draft.id}/reminders`)).headers['x-next-reminder-at']).toBeUndefined();
    });

    it('should defer a periodic reminder by a day for a recipient active in the portal, visibly', async () => {
      const { request, token } = await requestWithLink(t.app, tenant.apiKey, { reminders: 1 });
      at(0, 600);
      await signedIn(t.app, token);
      at(1, 2);
      await run();
      const [deferred] = (await api().get(`/requests/${request.id}/reminders`)).json();
      expect(deferred).toMatchObject({
        kind: 'PERIODIC',
        recipients: [{ status: 'DEFERRED', deferred_until: expect.any(String), messages: [] }],
      });
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(0);
      const actions = (await api().get(`/requests/${request.id}/activity?limit=50`)).json();
      expect(actions.find((e: { action: string }) => e.action === 'reminder.deferred')).toMatchObject({
        actor: { type: 'SYSTEM' },
        details: { reminder_id: deferred.id },
      });
      // A day later the next periodic reminder goes (the recipient was not active since), and the
      // deferred one finds it reminded: one message, not two.
      at(2, 5);
      await run();
      const reminders = (await api().get(`/requests/${request.id}/reminders`)).json();
      expect(reminders.map((r: { recipients: { status: string }[] }) => r.recipients[0].status)).toEqual([
        'SENT',
        'DEFERRED',
      ]);
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(1);
    });
    it('should send a deferred reminder a day later when no other reminder came first', async () => {
      const { request, token } = await requestWithLink(t.app, tenant.apiKey, { reminders: 7 });
      at(6, 600);
      await signedIn(t.app, token);
      at(7, 2);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(0);
      at(8, 1);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(0);
      at(8, 5);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(1);
      const [sent, deferred] = (await api().get(`/requests/${request.id}/reminders`)).json();
      expect(sent).toMatchObject({ kind: 'PERIODIC', recipients: [{ status: 'SENT' }] });
      expect(deferred).toMatchObject({ kind: 'PERIODIC', recipients: [{ status: 'DEFERRED' }] });
    });
  });

  describe('scheduled reminders', () => {
    it('should schedule, change, send once and list a reminder; refuse a past time; delete one', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { reminders: 0 });
      const base = `/requests/${request.id}/scheduled-reminders`;
      const past = await api().post(base, { send_at: new Date(Date.now() - 60_000).toISOString() });
      expect(past.statusCode).toBe(422);
      expect(past.json().detail[0]).toMatchObject({ loc: ['body', 'send_at'], type: 'out_of_range' });

      const created = await api().post(base, { send_at: future(2), message: 'Friendly nudge' });
      expect(created.statusCode).toBe(200);
      expect(created.json()).toMatchObject({
        request_id: request.id,
        message: 'Friendly nudge',
        status: 'PENDING',
        sent_at: null,
      });
      const id = created.json().id;
      const patched = await api().patch(`${base}/${id}`, { send_at: future(3) });
      expect(patched.json()).toMatchObject({ id, status: 'PENDING', message: 'Friendly nudge' });
      expect((await api().get(`/requests/${request.id}/reminders`)).headers['x-next-reminder-at']).toBe(
        patched.json().send_at,
      );

      at(2);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(0);
      at(3);
      await run();
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(1);
      const got = (await api().get(`${base}/${id}`)).json();
      expect(got).toMatchObject({ status: 'SENT', sent_at: expect.any(String) });
      expect((await api().patch(`${base}/${id}`, { message: 'late' })).json().detail[0].type).toBe('invalid_state');
      expect((await api().get(`/requests/${request.id}/reminders`)).json()[0]).toMatchObject({
        kind: 'SCHEDULED',
        message: 'Friendly nudge',
      });

      const doomed = (await api().post(base, { send_at: future(5) })).json();
      expect((await api().delete(`${base}/${doomed.id}`)).statusCode).toBe(204);
      expect((await api().get(`${base}/${doomed.id}`)).statusCode).toBe(404);
      at(6);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(1);
    });

    it('should hold at most 20 pending per request', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { reminders: 0 });
      for (let i = 0; i < 20; i++)
        expect(
          (await api().post(`/requests/${request.id}/scheduled-reminders`, { send_at: future(i + 1) })).statusCode,
        ).toBe(200);
      const over = await api().post(`/requests/${request.id}/scheduled-reminders`, { send_at: future(30) });
      expect(over.statusCode).toBe(422);
      expect(over.json().detail[0].type).toBe('too_many');
    });

    it('should send the entries of reminder_schedule, each once even when the schedule is saved again', async () => {
      const first = future(1);
      const request = await createRequest(t.app, tenant.apiKey, {
        reminders: 0,
        reminder_schedule: [{ send_at: first, message: 'one' }],
      });
      at(1, 5);
      await run();
      expect(await notifications(request.id, 'REMINDER')).toHaveLength(1);
      const saved = await api().patch(`/requests/${request.id}`, {
        reminder_schedule: [
          { send_at: first, message: 'one' },
          { send_at: future(3), message: 'two' },
        ],
      });
      expect(saved.statusCode).toBe(200);
      await run();
      at(3, 5);
      await run();
      expect((await notifications(request.id, 'REMINDER')).map((n) => n.params.message)).toEqual(['one', 'two']);
      const refused = await api().patch(`/requests/${request.id}`, {
        reminder_schedule: [{ send_at: new Date(Date.now() - DAY).toISOString() }],
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().detail[0].loc).toEqual(['body', 'reminder_schedule', 0, 'send_at']);
    });
  });

  describe('escalations', () => {
    it('should answer string values, refuse bad rules, and fire an OVERDUE rule once', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { reminders: 0, due_date: future(1) });
      const base = `/requests/${request.id}/escalations`;
      const created = await api().post(base, { condition: 'OVERDUE', after_days: 2 });
      expect(created.statusCode).toBe(200);
      expect(created.json()).toEqual({
        id: expect.any(String),
        request_id: request.id,
        condition: 'OVERDUE',
        after_days: '2',
        notify_user_id: tenant.userId,
        status: 'PENDING',
        created_at: expect.any(String),
      });
      const mailed = await api().post(base, { condition: 'NOT_OPENED', after_days: 3, notify_email: 'b@example.com' });
      expect(Object.values(mailed.json()).every((value) => typeof value === 'string')).toBe(true);
      expect(mailed.json()).not.toHaveProperty('notify_user_id');
      await api().delete(`${base}/${mailed.json().id}`);

      const stranger = await createUser(t.app, other.apiKey, { email: `stranger-${Date.now()}@example.com` });
      const foreign = await api().post(base, { condition: 'OVERDUE', after_days: 2, notify_user_id: stranger.userId });
      expect(foreign.statusCode).toBe(422);
      expect(foreign.json().detail[0]).toMatchObject({ loc: ['body', 'notify_user_id'], type: 'not_found' });
      expect((await api().post(base, { condition: 'OVERDUE', after_days: 0 })).statusCode).toBe(422);
      expect(
        (
          await api().post(base, {
            condition: 'OVERDUE',
            after_days: 2,
            notify_user_id: tenant.userId,
            notify_email: 'a@example.com',
          })
        ).statusCode,
      ).toBe(422);
      expect(
        (await api().post(base, { condition: 'OVERDUE', after_days: 2, notify_email: 'not an address' })).statusCode,
      ).toBe(422);

      at(2, 30);
      await run();
      expect(await notifications(request.id, 'ESCALATION')).toHaveLength(0);
      at(3, 5);
      await run();
      at(9);
      await run();
      const fired = await notifications(request.id, 'ESCALATION');
      expect(fired).toHaveLength(1);
      expect(fired[0].params).toMatchObject({ condition: 'OVERDUE', afterDays: 2, recipientNames: ['Ana Diaz'] });
      const got = (await api().get(`${base}/${created.json().id}`)).json();
      expect(got).toMatchObject({ status: 'FIRED', fired_at: expect.any(String) });
      expect((await api().patch(`${base}/${got.id}`, { after_days: 5 })).json().detail[0].type).toBe('invalid_state');
    });

    it('should move an OVERDUE rule with the due date, and hold it while the request has none', async () => {
      const moved = await createRequest(t.app, tenant.apiKey, { reminders: 0, due_date: future(1) });
      const cleared = await createRequest(t.app, tenant.apiKey, { reminders: 0, due_date: future(1) });
      for (const request of [moved, cleared])
        expect(
          (await api().post(`/requests/${request.id}/escalations`, { condition: 'OVERDUE', after_days: 1 })).statusCode,
        ).toBe(200);
      expect((await api().patch(`/requests/${moved.id}`, { due_date: future(4) })).statusCode).toBe(200);
      expect((await api().patch(`/requests/${cleared.id}`, { due_date: null })).statusCode).toBe(200);
      at(2, 30);
      await run();
      expect(await notifications(moved.id, 'ESCALATION')).toEqual([]);
      expect(await notifications(cleared.id, 'ESCALATION')).toEqual([]);
      at(5, 5);
      await run();
      expect(await notifications(moved.id, 'ESCALATION')).toHaveLength(1);
      expect(await notifications(cleared.id, 'ESCALATION')).toEqual([]);
    });

    it('should fire NOT_OPENED to an address when a recipient has not opened its link, and not when all did', async () => {
      const unopened = await createRequest(t.app, tenant.apiKey, { reminders: 0 });
      const opened = await requestWithLink(t.app, tenant.apiKey, { reminders: 0 });
      await signedIn(t.app, opened.token);
      for (const id of [unopened.id, opened.request.id]) {
        expect(
          (
            await api().post(`/requests/${id}/escalations`, {
              condition: 'NOT_OPENED',
              after_days: 1,
              notify_email: 'boss@example.com',
            })
          ).statusCode,
        ).toBe(200);
      }
      const moved = (
        await api().post(`/requests/${unopened.id}/escalations`, { condition: 'NOT_OPENED', after_days: 1 })
      ).json();
      expect(
        (await api().patch(`/requests/${unopened.id}/escalations/${moved.id}`, { after_days: 4 })).json().after_days,
      ).toBe('4');
      expect((await api().delete(`/requests/${unopened.id}/escalations/${moved.id}`)).statusCode).toBe(204);
      at(1, 5);
      await run();
      expect((await notifications(unopened.id, 'ESCALATION')).map((n) => n.address)).toEqual(['boss@example.com']);
      expect(await notifications(opened.request.id, 'ESCALATION')).toEqual([]);
      at(5);
      await run();
      expect(await notifications(unopened.id, 'ESCALATION')).toHaveLength(1);
      expect((await api().get(`/requests/${unopened.id}/escalations`)).json()).toHaveLength(1);
    });
  });

  describe('duplicate', () => {
    it('should make a request with the same fields, items and recipients, new links, in its initial state', async () => {
      const original = await createRequest(t.app, tenant.apiKey, {
        reminders: 5,
        personal_message: 'Hello',
        due_date: future(10),
      });
      await api().post(`/requests/${original.id}/reminders`, {});
      const copy = await api().post(`/requests/${original.id}/duplicate`, { name: 'Tax documents 2025' });
      expect(copy.statusCode).toBe(200);
      const body = copy.json();
      expect(body).toMatchObject({
        name: 'Tax documents 2025',
        status: 'INCOMPLETE_AND_LINK_SENT',
        personal_message: 'Hello',
        reminders: '5',
        due_date: original.due_date,
      });
      expect(body.id).not.toBe(original.id);
      type Item = { name: string; type: string; required: boolean; answer: string | null; verified: boolean };
      expect(body.items.map((i: Item) => [i.name, i.type, i.required, i.answer, i.verified])).toEqual(
        original.items.map((i: Item) => [i.name, i.type, i.required, null, false]),
      );
      expect(body.recipients.map((r: { recipient: { email: string } }) => r.recipient.email)).toEqual([
        'ana@example.com',
      ]);
      expect(body.recipients[0].request_link).not.toBe(original.recipients[0].request_link);
      expect((await api().get(`/requests/${body.id}/reminders`)).json()).toEqual([]);
      const named = await api().post(`/requests/${original.id}/duplicate`, {});
      expect(named.json().name).toBe(original.name);
      // `name` is optional: an empty POST (no body, no content type) duplicates too.
      const bare = await t.app.inject({
        method: 'POST',
        url: `/requests/${original.id}/duplicate`,
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      });
      expect([bare.statusCode, bare.json().name]).toEqual([200, original.name]);
      expect((await client(t.app, other.apiKey).post(`/requests/${original.id}/duplicate`, {})).statusCode).toBe(404);
    });
  });
});
