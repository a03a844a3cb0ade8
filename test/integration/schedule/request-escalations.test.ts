import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest, createUser, requestBody } from '../../support/fixtures';

// `escalations` on the request (spec 2.1, later revision): given on create and update, REST and GraphQL, answered
// with the request, planned by the schedule consumer once the request's event committed, and fired on time.

const DAY = 86_400_000;
const future = (days: number) => new Date(Date.now() + days * DAY).toISOString();

describe('escalations on the request', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let offsetMs = 0;
  const api = () => client(t.app, tenant.apiKey);
  const run = () => t.app.jobs.runDue();
  const sql = <T>(statement: string, params: unknown[]) => t.orm.em.fork().execute<T[]>(statement, params);
  const jobs = async (requestId: string) =>
    (
      await sql<{ key: string; status: string; due_at: string }>(
        `select key, status, due_at from job where request_id = ? and kind = 'ESCALATION' order by due_at`,
        [requestId],
      )
    ).map((job) => ({ ...job, due_at: new Date(job.due_at) }));
  const countRequests = async () =>
    (
      await sql<{ count: number }>('select count(*)::int as count from request where organization_id = ?', [
        tenant.organizationId,
      ])
    )[0].count;

  beforeAll(async () => {
    t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    tenant = await createTenant(t.db);
    other = await createTenant(t.db);
  });
  afterAll(() => t.close());
  beforeEach(() => {
    offsetMs = 0;
  });

  describe('REST', () => {
    it('should plan no rules for a request created without any, and ask nothing about them', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { reminders: 0 });
      t.sql.reset();
      await run();
      const planned = t.sql.statements.filter((statement) => /from escalation e/.test(statement));
      expect(planned).toEqual([]);
      expect(await jobs(request.id)).toEqual([]);
    });

    it('should take the rules on create, answer them with the request as the escalation list does, and plan them', async () => {
      const dueDate = future(2);
      const request = await createRequest(t.app, tenant.apiKey, {
        reminders: 0,
        due_date: dueDate,
        escalations: [
          { condition: 'OVERDUE', after_days: 3 },
          { condition: 'NOT_OPENED', after_days: 1, notify_email: 'boss@example.com' },
        ],
      });
      expect(request.escalations).toEqual([
        {
          id: expect.any(String),
          request_id: request.id,
          condition: 'OVERDUE',
          after_days: '3',
          notify_user_id: tenant.userId,
          status: 'PENDING',
          created_at: expect.any(String),
        },
        {
          id: expect.any(String),
          request_id: request.id,
          condition: 'NOT_OPENED',
          after_days: '1',
          notify_email: 'boss@example.com',
          status: 'PENDING',
          created_at: expect.any(String),
        },
      ]);
      // Beside reminder_schedule, as spec 2.1 places it.
      const keys = Object.keys(request);
      expect(keys[keys.indexOf('reminder_schedule') + 1]).toBe('escalations');
      // The creation answers from its rules as written: a fresh read shows the same.
      expect((await api().get(`/requests/${request.id}`)).json()).toEqual(request);
      expect((await api().get(`/requests/${request.id}/escalations`)).json()).toEqual(request.escalations);

      // The creation's event plans them, as escalationCreate plans its own.
      await run();
      const [notOpened, overdue] = request.escalations.slice().reverse();
      expect(await jobs(request.id)).toEqual([
        {
          key: `escalation:${notOpened.id}`,
          status: 'PENDING',
          due_at: new Date(new Date(request.created_at).getTime() + DAY),
        },
        { key: `escalation:${overdue.id}`, status: 'PENDING', due_at: new Date(new Date(dueDate).getTime() + 3 * DAY) },
      ]);
      offsetMs = DAY + 60_000;
      await run();
      const fired = await sql<{ address: string }>(
        `select address from notification where request_id = ? and kind = 'ESCALATION'`,
        [request.id],
      );
      expect(fired).toEqual([{ address: 'boss@example.com' }]);
      expect((await api().get(`/requests/${request.id}`)).json().escalations.map((e: any) => e.status)).toEqual([
        'PENDING',
        'FIRED',
      ]);
    });

    it('should refuse a bad element at its index, and create nothing', async () => {
      const before = await countRequests();
      const body = (escalations: unknown[]) => requestBody({ escalations });
      const shape = await api().post(
        '/requests',
        body([
          { condition: 'OVERDUE', after_days: 2 },
          { condition: 'LATE', after_days: 0 },
        ]),
      );
      expect(shape.statusCode).toBe(422);
      expect(shape.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
        expect.arrayContaining([
          ['body', 'escalations', 1, 'condition'],
          ['body', 'escalations', 1, 'after_days'],
        ]),
      );
      const stranger = await createUser(t.app, other.apiKey, { email: `stranger-${Date.now()}@example.com` });
      const rules = await api().post(
        '/requests',
        body([
          { condition: 'OVERDUE', after_days: 2 },
          { condition: 'OVERDUE', after_days: 2, notify_user_id: stranger.userId },
          { condition: 'NOT_OPENED', after_days: 2, notify_user_id: tenant.userId, notify_email: 'a@example.com' },
        ]),
      );
      expect(rules.statusCode).toBe(422);
      expect(rules.json().detail).toEqual([
        {
          loc: ['body', 'escalations', 1, 'notify_user_id'],
          msg: 'Names no user of your organization',
          type: 'not_found',
        },
        {
          loc: ['body', 'escalations', 2, 'notify_email'],
          msg: 'Name a user or an address, not both',
          type: 'invalid',
        },
      ]);
      const tooMany = await api().post(
        '/requests',
        body(Array.from({ length: 21 }, (_, i) => ({ condition: 'NOT_OPENED', after_days: i + 1 }))),
      );
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().detail[0].loc).toEqual(['body', 'escalations']);
      expect(await countRequests()).toBe(before);
    });

    it('should replace the rules on PATCH, keeping those given again, and plan the new ones', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        reminders: 0,
        escalations: [
          { condition: 'NOT_OPENED', after_days: 2 },
          { condition: 'NOT_OPENED', after_days: 5, notify_email: 'gone@example.com' },
        ],
      });
      await run();
      const [kept, dropped] = request.escalations;
      const patched = await api().patch(`/requests/${request.id}`, {
        escalations: [
          { condition: 'NOT_OPENED', after_days: 2 },
          { condition: 'OVERDUE', after_days: 1, notify_email: 'new@example.com' },
        ],
      });
      expect(patched.statusCode).toBe(200);
      const escalations = patched.json().escalations;
      expect(escalations.map((e: any) => [e.id === kept.id, e.condition, e.after_days])).toEqual([
        [true, 'NOT_OPENED', '2'],
        [false, 'OVERDUE', '1'],
      ]);
      expect((await api().get(`/requests/${request.id}/escalations/${dropped.id}`)).statusCode).toBe(404);
      const [event] = await sql<{ updated: string[] }>(
        `select updated from event where subject_id = ? and topic = 'request.updated' order by created_at desc limit 1`,
        [request.id],
      );
      expect(event.updated).toEqual(['escalations']);
      await run();
      // The dropped rule's job is cancelled; the new OVERDUE rule waits for a due date, then moves with it.
      const planned = Object.fromEntries((await jobs(request.id)).map((job) => [job.key, job.status]));
      expect(planned).toEqual({
        [`escalation:${kept.id}`]: 'PENDING',
        [`escalation:${dropped.id}`]: 'CANCELLED',
        [`escalation:${escalations[1].id}`]: 'CANCELLED',
      });
      await api().patch(`/requests/${request.id}`, { due_date: future(1) });
      await run();
      expect((await jobs(request.id)).find((job) => job.key === `escalation:${escalations[1].id}`)?.status).toBe(
        'PENDING',
      );

      // The same rules again change nothing; an empty list deletes them; null is refused.
      const again = await api().patch(`/requests/${request.id}`, {
        escalations: [
          { condition: 'NOT_OPENED', after_days: 2 },
          { condition: 'OVERDUE', after_days: 1, notify_email: 'new@example.com' },
        ],
      });
      expect(again.json().updated_at).toBe((await api().get(`/requests/${request.id}`)).json().updated_at);
      const refused = await api().patch(`/requests/${request.id}`, { escalations: [{ condition: 'OVERDUE' }] });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().detail[0].loc).toEqual(['body', 'escalations', 0, 'after_days']);
      expect((await api().patch(`/requests/${request.id}`, { escalations: null })).statusCode).toBe(422);
      const emptied = await api().patch(`/requests/${request.id}`, { escalations: [] });
      expect(emptied.json().escalations).toEqual([]);
    });
  });

  describe('GraphQL', () => {
    const fields = 'escalations { id condition afterDays notifyEmail notifyUser { id } status }';

    it('should take the rules on requestCreate and requestUpdate and answer them on the request', async () => {
      const created = await api().graphql(
        `mutation ($input: RequestCreateInput!) { requestCreate(input: $input) { request { id ${fields} } userErrors { field code } } }`,
        {
          input: {
            name: 'With rules',
            items: [{ upload: { name: 'W-2' } }],
            recipients: [{ email: 'g@example.com' }],
            escalations: [{ condition: 'NOT_OPENED', afterDays: 4, notifyEmail: 'boss@example.com' }],
          },
        },
      );
      expect(created.data.requestCreate.userErrors).toEqual([]);
      const request = created.data.requestCreate.request;
      expect(request.escalations).toEqual([
        {
          id: expect.any(String),
          condition: 'NOT_OPENED',
          afterDays: 4,
          notifyEmail: 'boss@example.com',
          notifyUser: null,
          status: 'PENDING',
        },
      ]);
      const updated = await api().graphql(
        `mutation ($id: ID!, $input: RequestUpdateInput!) { requestUpdate(id: $id, input: $input) { request { ${fields} } userErrors { field code } } }`,
        {
          id: request.id,
          input: { escalations: [{ condition: 'OVERDUE', afterDays: 2, notifyUserId: tenant.userId }] },
        },
      );
      expect(updated.data.requestUpdate).toEqual({
        request: {
          escalations: [
            {
              id: expect.any(String),
              condition: 'OVERDUE',
              afterDays: 2,
              notifyEmail: null,
              notifyUser: { id: tenant.userId },
              status: 'PENDING',
            },
          ],
        },
        userErrors: [],
      });
    });

    it('should answer a bad element as userErrors at its path', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { reminders: 0 });
      const refused = await api().graphql(
        `mutation ($id: ID!, $input: RequestUpdateInput!) { requestUpdate(id: $id, input: $input) { request { id } userErrors { field code } } }`,
        {
          id: request.id,
          input: {
            escalations: [
              { condition: 'OVERDUE', afterDays: 2 },
              { condition: 'OVERDUE', afterDays: 400, notifyEmail: 'not an address' },
            ],
          },
        },
      );
      expect(refused.data.requestUpdate).toEqual({
        request: null,
        userErrors: [
          { field: ['input', 'escalations', '1', 'afterDays'], code: 'OUT_OF_RANGE' },
          { field: ['input', 'escalations', '1', 'notifyEmail'], code: 'INVALID' },
        ],
      });
      expect((await api().get(`/requests/${request.id}/escalations`)).json()).toEqual([]);
    });
  });
});
