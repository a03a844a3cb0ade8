import { createHash } from 'node:crypto';
import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createTeam, createUser, requestBody, UNKNOWN_ID } from '../../support/fixtures';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('REST requests', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp({}, {}, 'Acme'));
  });
  afterAll(() => t.close());

  describe('POST /requests', () => {
    it('should create a request in INCOMPLETE_AND_LINK_SENT with the spec fields and defaults', async () => {
      const response = await api.post('/requests', requestBody());
      expect(response.statusCode).toBe(200);
      const request = response.json();
      expect(request).toMatchObject({
        name: 'Tax documents 2024',
        owner_id: tenant.userId,
        team_id: null,
        status: 'INCOMPLETE_AND_LINK_SENT',
        state: 'INCOMPLETE_AND_LINK_SENT',
        owner_opened: false,
        user_opened: false,
        verified: false,
        deleted: false,
        rejected: false,
        language: 'en-US',
        reminders: '3',
        user_metadata: {},
        cloud_storage_provider: 'SERVICE',
        percent_complete: 0,
        collaborators: [],
      });
      expect(request.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.items).toEqual([
        {
          id: expect.any(String),
          name: 'W-2',
          type: 'UPLOAD',
          description: null,
          required: true,
          answer: null,
          verified: false,
          is_na: false,
          form: null,
          form_answers: null,
          upload_rules: null,
        },
        {
          id: expect.any(String),
          name: 'Any dependents?',
          type: 'QUESTION',
          description: null,
          required: false,
          answer: null,
          verified: false,
          is_na: false,
          form: null,
          form_answers: null,
          upload_rules: null,
        },
      ]);
      expect(response.headers['api-revision']).toBe('2');
    });

    it('should give each recipient a private link, a password and auth, and make it a contact of the owner', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        recipients: [
          { first_name: 'Ana', email: 'ana.links@example.com' },
          { first_name: 'Bo', phone: '+15551234567', auth_method: 'SMS' },
        ],
      });
      const [ana, bo] = request.recipients;
      expect(ana.request_link).toMatch(/^https:\/\/gather\.test\/r\/[A-Za-z0-9_-]{43}$/);
      expect(bo.request_link).not.toBe(ana.request_link);
      expect(ana.password).toMatch(/^[A-Za-z0-9]{14}$/);
      expect(ana).toMatchObject({ auth: 'NONE', mfa_link: null });
      expect(bo.auth).toBe('SMS');
      expect(bo.mfa_link).toBe(`${bo.request_link}/verify`);
      expect(ana.recipient).toMatchObject({
        first_name: 'Ana',
        email: 'ana.links@example.com',
        owner_id: tenant.userId,
        team_id: null,
      });

      // The same link and password come back on every read, though only their hashes are stored.
      const again = (await api.get(`/requests/${request.id}`)).json();
      expect(again.recipients[0].request_link).toBe(ana.request_link);
      expect(again.recipients[0].password).toBe(ana.password);
      const stored = await t.orm.em
        .fork()
        .execute(`select token_hash, password_hash from recipient where request_id = ? order by position`, [
          request.id,
        ]);
      const token = ana.request_link.split('/r/')[1];
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(JSON.stringify(stored)).not.toContain(ana.password);
      // What is stored is what a link presented later will be checked against.
      expect(stored[0]).toEqual({ token_hash: sha256(token), password_hash: sha256(ana.password) });

      const contacts = (await api.get('/contacts?limit=100')).json();
      expect(contacts.map((c: { id: string }) => c.id)).toEqual(
        expect.arrayContaining([ana.recipient.id, bo.recipient.id]),
      );
    });

    it('should reuse an existing contact named by id, and upsert contacts on email and phone', async () => {
      const first = await createRequest(t.app, tenant.apiKey, {
        recipients: [{ first_name: 'Cy', email: 'cy@example.com' }],
      });
      const contactId = first.recipients[0].recipient.id;
      const byId = await createRequest(t.app, tenant.apiKey, { recipients: [{ id: contactId }] });
      expect(byId.recipients[0].recipient).toMatchObject({ id: contactId, email: 'cy@example.com', first_name: 'Cy' });
      const byEmail = await createRequest(t.app, tenant.apiKey, {
        recipients: [{ email: 'CY@example.com', last_name: 'Young' }],
      });
      expect(byEmail.recipients[0].recipient.id).toBe(contactId);
    });

    it('should answer, and give its request.created event, what GET /requests/{id} answers right after', async () => {
      // A contact of another user of a team, named by id, beside contacts upserted from details.
      const teamId = await createTeam(t.app, tenant.apiKey, 'Snapshot team');
      const member = await createUser(t.app, tenant.apiKey, { email: 'snapshot.member@example.com', teamId });
      const theirs = await createRequest(t.app, member.apiKey, {
        recipients: [{ first_name: 'Dee', email: 'dee.snapshot@example.com' }],
      });
      const created = await api.post(
        '/requests',
        requestBody({
          mfa_enabled: true,
          items: [
            { type: 'QUESTION', name: 'Which year?', description: 'The tax year', required: true },
            { type: 'UPLOAD', name: 'Passport', required: false },
          ],
          recipients: [
            { first_name: 'Eve', last_name: 'Snap', email: 'eve.snapshot@example.com', language: 'es' },
            { id: theirs.recipients[0].recipient.id },
            { first_name: 'Fay', phone: '+15550001234', auth_method: 'SMS' },
          ],
        }),
      );
      expect(created.statusCode).toBe(200);
      const answer = created.json();
      const got = (await api.get(`/requests/${answer.id}`)).json();
      expect(answer).toEqual(got);
      expect(
        got.recipients.map((r: { recipient: { owner_id: string; team_id: string | null } }) => r.recipient),
      ).toEqual([
        expect.objectContaining({ owner_id: tenant.userId, team_id: null }),
        expect.objectContaining({ owner_id: member.userId, team_id: teamId }),
        expect.objectContaining({ owner_id: tenant.userId, team_id: null }),
      ]);
      expect(got.items.map((item: { name: string }) => item.name)).toEqual(['Which year?', 'Passport']);
      const [event] = await t.orm.em
        .fork()
        .execute(`select data from event where topic = 'request.created' and subject_id = ?`, [answer.id]);
      expect(event.data).toEqual(got);
    });

    it('should answer MFA recipients with an mfa_link and EMAIL auth', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        mfa_enabled: true,
        recipients: [{ email: 'mfa@example.com' }],
      });
      expect(request.recipients[0].auth).toBe('EMAIL');
      expect(request.recipients[0].mfa_link).toMatch(/\/verify$/);
    });

    it('should start in INCOMPLETE_AND_LINK_GENERATED when skip_initial_notification is true', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { skip_initial_notification: true });
      expect(request.state).toBe('INCOMPLETE_AND_LINK_GENERATED');
    });

    it('should store every creation field', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        due_date: '2030-01-01T00:00:00Z',
        expiration_date: '2030-02-01T00:00:00Z',
        auto_close_at: '2030-03-01T00:00:00Z',
        first_reminder_date: '2029-12-01',
        personal_message: 'Hello',
        notes: 'internal',
        user_metadata: { crm_id: '42' },
        language: 'es',
        reminders: 7,
        reminder_schedule: [{ send_at: '2029-12-15T09:00:00Z', message: 'Nudge' }],
        cloud_storage_folder: 'folder-1',
        cloud_storage_provider: 'GOOGLE_DRIVE',
        require_complete_submission: true,
        disable_submission_comments: true,
      });
      expect(request).toMatchObject({
        due_date: '2030-01-01T00:00:00.000Z',
        expiration_date: '2030-02-01T00:00:00.000Z',
        auto_close_at: '2030-03-01T00:00:00.000Z',
        first_reminder_date: '2029-12-01T00:00:00.000Z',
        personal_message: 'Hello',
        notes: 'internal',
        user_metadata: { crm_id: '42' },
        language: 'es',
        reminders: '7',
        reminder_schedule: [{ send_at: '2029-12-15T09:00:00.000Z', message: 'Nudge' }],
        cloud_storage_folder: 'folder-1',
        cloud_storage_provider: 'GOOGLE_DRIVE',
        require_complete_submission: true,
        disable_submission_comments: true,
      });
      // Stored as answered: the JSON columns hold the object and the list, not a text or an array.
      expect((await api.get(`/requests/${request.id}`)).json()).toEqual(request);
      const [row] = await t.orm.em
        .fork()
        .getConnection()
        .execute(
          'select jsonb_typeof(user_metadata) as metadata, jsonb_typeof(reminder_schedule) as schedule from request where id = ?',
          [request.id],
        );
      expect(row).toEqual({ metadata: 'object', schedule: 'array' });
    });

    it('should accept the spec language "en" as en-US', async () => {
      expect((await createRequest(t.app, tenant.apiKey, { language: 'en' })).language).toBe('en-US');
    });

    it('should refuse an expiration_date not later than due_date with 422', async () => {
      const response = await api.post(
        '/requests',
        requestBody({ due_date: '2030-01-02T00:00:00Z', expiration_date: '2030-01-01T00:00:00Z' }),
      );
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ['body', 'expiration_date'], msg: 'Must be later than the due date', type: 'invalid' },
      ]);
    });

    it('should answer 422 with one entry per problem and loc starting with body', async () => {
      const response = await api.post('/requests', {
        name: 'x'.repeat(300),
        reminders: '3',
        language: 'xx',
        due_date: '2025-02-30',
        recipients: [{ email: 42 }],
        items: [{ type: 'UPLOAD' }],
      });
      expect(response.statusCode).toBe(422);
      const locs = response.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
      expect(locs).toEqual(
        expect.arrayContaining([
          'body.name',
          'body.reminders',
          'body.language',
          'body.due_date',
          'body.recipients.0.email',
          'body.items.0.name',
        ]),
      );
      for (const entry of response.json().detail)
        expect(entry).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    });

    it('should require recipients, and name and items without a template', async () => {
      const response = await api.post('/requests', { recipients: [{ email: 'a@example.com' }] });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual([
        'body.name',
        'body.items',
      ]);
      const none = await api.post('/requests', { name: 'n', items: [] });
      expect(none.json().detail).toEqual([{ loc: ['body', 'recipients'], msg: 'Field required', type: 'missing' }]);
    });

    it('should refuse user_metadata values that are not strings', async () => {
      const response = await api.post('/requests', requestBody({ user_metadata: { a: 1, b: { c: 'd' } } }));
      expect(response.statusCode).toBe(422);
      expect(response.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual([
        'body.user_metadata.a',
        'body.user_metadata.b',
      ]);
    });

    it('should ignore unknown fields and never store them', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        legacy_field: 'x',
        items: [{ type: 'UPLOAD', name: 'A', colour: 'red' }],
      });
      expect(request).not.toHaveProperty('legacy_field');
      expect(JSON.stringify((await api.get(`/requests/${request.id}`)).json())).not.toContain('colour');
    });

    it('should let ADMIN set owner_id and team_id within its organization only', async () => {
      const teamId = await createTeam(t.app, tenant.apiKey, 'Tax team');
      const member = await createUser(t.app, tenant.apiKey, { email: 'owner.member@example.com', teamId });
      const request = await createRequest(t.app, tenant.apiKey, { owner_id: member.userId });
      expect(request).toMatchObject({ owner_id: member.userId, team_id: teamId });

      const other = await createTenant(t.db, 'Other');
      const foreign = await api.post('/requests', requestBody({ owner_id: other.userId, team_id: UNKNOWN_ID }));
      expect(foreign.statusCode).toBe(422);
      expect(foreign.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual([
        'body.owner_id',
        'body.team_id',
      ]);
    });

    it('should refuse a USER creating a request for another owner with 403', async () => {
      const user = await createUser(t.app, tenant.apiKey, { email: 'plain.user@example.com' });
      const response = await client(t.app, user.apiKey).post('/requests', requestBody({ owner_id: tenant.userId }));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ detail: expect.any(String) });
    });

    it('should accept collaborators as ids or objects and return their names', async () => {
      const colleague = await createUser(t.app, tenant.apiKey, { email: 'colleague@example.com', firstName: 'Col' });
      const request = await createRequest(t.app, tenant.apiKey, {
        collaborators: [{ id: colleague.userId, role: 'ADMIN' }],
      });
      expect(request.collaborators).toEqual([
        { id: colleague.userId, role: 'ADMIN', first_name: 'Col', last_name: null, email: 'colleague@example.com' },
      ]);
      const plain = await createRequest(t.app, tenant.apiKey, { collaborators: [colleague.userId] });
      expect(plain.collaborators[0]).toMatchObject({ id: colleague.userId, role: 'USER' });
    });

    it('should answer a creation as a fresh read shows it: collaborators, contacts it refreshed, a template', async () => {
      const colleague = await createUser(t.app, tenant.apiKey, {
        email: `fresh-${Date.now()}@example.com`,
        firstName: 'Fre',
      });
      await createRequest(t.app, tenant.apiKey, {
        recipients: [{ email: 'Known@Example.com', first_name: 'Kno', language: 'fr' }],
      });
      const template = (
        await api.post('/templates', { name: 'Fresh', items: [{ type: 'QUESTION', name: 'Why?' }] })
      ).json();
      const request = await createRequest(t.app, tenant.apiKey, {
        template_id: template.id,
        collaborators: [{ id: colleague.userId, role: 'ADMIN' }],
        // A stored contact given a new last name (its email in other letter cases), and a new one.
        recipients: [{ email: 'KNOWN@example.com', last_name: 'Own' }, { email: 'new@example.com' }],
      });
      expect((await api.get(`/requests/${request.id}`)).json()).toEqual(request);
    });
  });

  describe('with a template', () => {
    let templateId: string;
    beforeAll(async () => {
      const response = await api.post('/templates', {
        name: 'Onboarding',
        default_title: 'Welcome pack',
        personal_message: 'From the template',
        reminders: 5,
        due_date_interval: 10,
        language: 'fr',
        items: [
          { name: 'Passport', type: 'UPLOAD', required: true },
          { name: 'Start date?', type: 'QUESTION', question: { type: 'TEXT', answer: 'Monday' } },
        ],
      });
      expect(response.statusCode).toBe(200);
      templateId = response.json().id;
    });

    it('should take name, items, message, language, reminders and due date from the template', async () => {
      const response = await api.post('/requests', {
        template_id: templateId,
        recipients: [{ email: 'new.hire@example.com' }],
      });
      expect(response.statusCode).toBe(200);
      const request = response.json();
      expect(request).toMatchObject({
        name: 'Welcome pack',
        template_id: templateId,
        personal_message: 'From the template',
        language: 'fr',
        reminders: '5',
      });
      expect(
        request.items.map((i: { name: string; type: string; answer: string | null }) => [i.name, i.type, i.answer]),
      ).toEqual([
        ['Passport', 'UPLOAD', null],
        ['Start date?', 'QUESTION', 'Monday'],
      ]);
      const days = (Date.parse(request.due_date) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(9.9);
      expect(days).toBeLessThan(10.1);
    });

    it('should replace the template items with the given ones, and save them into it with overwrite_template_items', async () => {
      const replaced = await createRequest(t.app, tenant.apiKey, {
        template_id: templateId,
        items: [{ type: 'UPLOAD', name: 'Only this' }],
      });
      expect(replaced.items.map((i: { name: string }) => i.name)).toEqual(['Only this']);
      expect((await api.get(`/templates/${templateId}`)).json().items).toHaveLength(2);

      await createRequest(t.app, tenant.apiKey, {
        template_id: templateId,
        items: [{ type: 'UPLOAD', name: 'Saved' }],
        overwrite_template_items: true,
      });
      expect((await api.get(`/templates/${templateId}`)).json().items.map((i: { name: string }) => i.name)).toEqual([
        'Saved',
      ]);
    });

    it('should answer 404 Template not found for an unknown template_id', async () => {
      const response = await api.post('/requests', {
        template_id: UNKNOWN_ID,
        recipients: [{ email: 'a@example.com' }],
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Template not found' });
    });
  });

  describe('GET /requests', () => {
    let ids: string[];
    beforeAll(async () => {
      const fresh = await createTenant(t.db, 'Lister');
      tenant = { ...tenant };
      listKey = fresh.apiKey;
      listOrg = fresh.organizationId;
      ids = [];
      for (let i = 0; i < 5; i++) ids.push((await createRequest(t.app, fresh.apiKey, { name: `R${i}` })).id);
      await client(t.app, fresh.apiKey).post(`/requests/${ids[1]}/close`);
    });
    let listKey: string;
    let listOrg: string;

    it('should list newest first by default, 20 at most', async () => {
      const response = await client(t.app, listKey).get('/requests');
      expect(response.statusCode).toBe(200);
      expect(response.json().map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    });

    it('should order ascending with order=asc and honour limit', async () => {
      const response = await client(t.app, listKey).get('/requests?order=asc&limit=2');
      expect(response.json().map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    });

    it('should filter by status', async () => {
      const closed = await client(t.app, listKey).get('/requests?status=CLOSED');
      expect(closed.json().map((r: { id: string }) => r.id)).toEqual([ids[1]]);
      const open = await client(t.app, listKey).get('/requests?status=INCOMPLETE_AND_LINK_SENT');
      expect(open.json()).toHaveLength(4);
    });

    it('should answer 422 for a bad status, order or limit', async () => {
      for (const query of ['status=OPEN', 'order=up', 'limit=0', 'limit=101', 'limit=abc']) {
        const response = await client(t.app, listKey).get(`/requests?${query}`);
        expect(response.statusCode).toBe(422);
        expect(response.json().detail[0].loc[0]).toBe('query');
      }
    });

    it('should list the organization requests at /organizations/{org_id}/requests', async () => {
      const response = await client(t.app, listKey).get(`/organizations/${listOrg}/requests?order=asc`);
      expect(response.statusCode).toBe(200);
      expect(response.json().map((r: { id: string }) => r.id)).toEqual(ids);
      const other = await client(t.app, listKey).get(`/organizations/${tenant.organizationId}/requests`);
      expect(other.statusCode).toBe(404);
      expect(other.json()).toEqual({ detail: 'Organization not found' });
    });
  });

  describe('GET /requests/{id}', () => {
    it('should answer 404 Request not found for an unknown id and 422 for a malformed one', async () => {
      const missing = await api.get(`/requests/${UNKNOWN_ID}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: 'Request not found' });
      const malformed = await api.get('/requests/not-a-uuid');
      expect(malformed.statusCode).toBe(422);
      expect(malformed.json().detail[0].loc).toEqual(['path', 'request_id']);
    });
  });

  describe('PATCH /requests/{request_id}', () => {
    it('should change the writable fields and leave absent ones alone', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { notes: 'keep me', due_date: '2030-01-01T00:00:00Z' });
      const response = await api.patch(`/requests/${request.id}`, {
        name: 'Renamed',
        reminders: 1,
        language: 'de',
        user_metadata: { k: 'v' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        name: 'Renamed',
        reminders: '1',
        language: 'de',
        user_metadata: { k: 'v' },
        notes: 'keep me',
        due_date: '2030-01-01T00:00:00.000Z',
      });
    });

    it('should answer what a read of the request then finds, whether the row written is read back or not', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      // Plain columns: the row as written is the locked one with the changes, not read back. A JSON
      // column: read back, in jsonb's own key order (shorter keys first), not the body's.
      for (const change of [
        { name: 'Held', due_date: '2031-02-03T04:05:06.789Z', notes: null },
        { user_metadata: { longer_key: 'a', k: 'b' } },
      ]) {
        const response = await api.patch(`/requests/${request.id}`, change);
        expect(response.statusCode).toBe(200);
        expect(JSON.stringify(response.json())).toBe(JSON.stringify((await api.get(`/requests/${request.id}`)).json()));
      }
      expect(Object.keys((await api.get(`/requests/${request.id}`)).json().user_metadata)).toEqual(['k', 'longer_key']);
    });

    it('should clear a nullable field given null, and refuse null for a required one', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { notes: 'to clear' });
      expect((await api.patch(`/requests/${request.id}`, { notes: null })).json().notes).toBeNull();
      const bad = await api.patch(`/requests/${request.id}`, { name: null });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().detail[0].loc).toEqual(['body', 'name']);
    });

    it('should ignore read-only fields', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const response = await api.patch(`/requests/${request.id}`, {
        state: 'VERIFIED',
        owner_id: UNKNOWN_ID,
        id: UNKNOWN_ID,
        notes: 'n',
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: request.id,
        state: 'INCOMPLETE_AND_LINK_SENT',
        owner_id: tenant.userId,
        notes: 'n',
      });
    });

    it('should keep expiration_date later than due_date against stored values', async () => {
      const request = await createRequest(t.app, tenant.apiKey, { due_date: '2030-01-10T00:00:00Z' });
      const response = await api.patch(`/requests/${request.id}`, { expiration_date: '2030-01-05T00:00:00Z' });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0].loc).toEqual(['body', 'expiration_date']);
    });

    it('should answer 404 for an unknown request', async () => {
      expect((await api.patch(`/requests/${UNKNOWN_ID}`, { name: 'x' })).statusCode).toBe(404);
    });
  });

  describe('DELETE /requests/{request_id}', () => {
    it('should answer 204 without a body, then 404', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const response = await api.delete(`/requests/${request.id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await api.get(`/requests/${request.id}`)).statusCode).toBe(404);
      expect((await api.delete(`/requests/${request.id}`)).statusCode).toBe(404);
      expect((await api.get('/requests?limit=100')).json().map((r: { id: string }) => r.id)).not.toContain(request.id);
    });
  });

  describe('POST /requests/{request_id}/close', () => {
    it('should set status and state to CLOSED and return the request', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      const response = await api.post(`/requests/${request.id}/close`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: request.id,
        status: 'CLOSED',
        state: 'CLOSED',
        closed_at: expect.any(String),
      });
      const again = await api.post(`/requests/${request.id}/close`, undefined, { 'content-type': 'application/json' });
      expect(again.statusCode).toBe(200);
      expect(again.json().closed_at).toBe(response.json().closed_at);
    });

    it('should refuse to close an expired request: 422 invalid_state, GraphQL INVALID_STATE', async () => {
      const request = await createRequest(t.app, tenant.apiKey);
      // Nothing expires a request through the API yet.
      await t.orm.em.fork().getConnection().execute(`update request set state = 'EXPIRED' where id = ?`, [request.id]);
      const response = await api.post(`/requests/${request.id}/close`);
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ['body'], msg: 'close is not allowed from request state EXPIRED', type: 'invalid_state' },
      ]);
      const result = await api.graphql(
        `mutation ($id: ID!) { requestClose(id: $id) { request { id } userErrors { code message } } }`,
        { id: request.id },
      );
      expect(result.data.requestClose).toEqual({
        request: null,
        userErrors: [{ code: 'INVALID_STATE', message: 'close is not allowed from request state EXPIRED' }],
      });
      expect((await api.get(`/requests/${request.id}`)).json()).toMatchObject({ state: 'EXPIRED', closed_at: null });
    });

    it('should answer 404 for an unknown request', async () => {
      expect((await api.post(`/requests/${UNKNOWN_ID}/close`)).statusCode).toBe(404);
    });
  });

  describe('percent_complete', () => {
    it('should be the share of required items complete, or of all items when none is required', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        items: [
          { type: 'UPLOAD', name: 'a', required: true },
          { type: 'UPLOAD', name: 'b', required: true },
          { type: 'UPLOAD', name: 'c' },
        ],
      });
      await api.post(`/requests/${request.id}/items/${request.items[0].id}/verify`);
      expect((await api.get(`/requests/${request.id}`)).json().percent_complete).toBe(50);

      const optional = await createRequest(t.app, tenant.apiKey, {
        items: [
          { type: 'UPLOAD', name: 'a' },
          { type: 'UPLOAD', name: 'b' },
          { type: 'UPLOAD', name: 'c' },
        ],
      });
      await api.post(`/requests/${optional.id}/items/${optional.items[2].id}/verify`);
      expect((await api.get(`/requests/${optional.id}`)).json().percent_complete).toBe(33.33);
    });
  });
});
