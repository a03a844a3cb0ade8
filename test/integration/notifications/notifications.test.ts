import { client, createTenant, createTenantApp, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createRequest, createUser } from '../../support/fixtures';
import { startSmtpServer } from '../../support/smtp';
import { sha256Hex } from '../../../src/modules/recipients/recipient-link';
import { NOTIFICATION_RETRY_DELAYS_MS } from '../../../src/modules/notifications/notification.limits';

/** Runs what is due: the events' consumers queue the messages, their jobs send them. */
const drain = (t: TestApp) => t.app.jobs.runDue();

async function tokenHashes(t: TestApp, requestId: string): Promise<Map<string, string>> {
  const rows = await t.orm.em
    .fork()
    .execute<{ email: string; token_hash: string }[]>('select email, token_hash from recipient where request_id = ?', [
      requestId,
    ]);
  return new Map(rows.map((row) => [row.email, row.token_hash]));
}

const LINK = /https:\/\/gather\.test\/r\/([A-Za-z0-9_-]{43})/;

describe('notifications through a real SMTP server', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let offsetMs = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ({ t, tenant, api } = await createTenantApp(
      { mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } },
      { clock: { now: () => new Date(Date.now() + offsetMs) } },
      'Acme <Accounting> & Co',
    ));
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.received.length = 0;
    smtp.refuseWhen(() => false);
  });

  it('should mail one invitation per recipient with an email, with its own working link, escaped in HTML', async () => {
    const request = await createRequest(t.app, tenant.apiKey, {
      name: 'Taxes <b>2024</b> & "more"',
      personal_message: 'Hi <script>alert(1)</script>',
      recipients: [
        { first_name: 'Ana', email: 'ana@example.com' },
        { first_name: 'Bea', email: 'bea@example.com' },
        { first_name: 'Bo', phone: '+15551234567', send_method: 'SMS' },
      ],
    });
    await drain(t);

    expect(smtp.received.map((m) => m.envelopeTo).sort()).toEqual([['ana@example.com'], ['bea@example.com']]);
    const hashes = await tokenHashes(t, request.id);
    const links = new Map<string, string>(
      request.recipients.map((r: { recipient: { email: string | null }; request_link: string }) => [
        r.recipient.email,
        r.request_link,
      ]),
    );
    for (const { envelopeTo, mail } of smtp.received) {
      const to = envelopeTo[0];
      expect(mail.from?.value).toEqual([{ name: 'Gather', address: 'no-reply@gather.test' }]);
      expect(mail.subject).toMatch(/^admin-\S+@example\.com requests documents: Taxes <b>2024<\/b> & "more"$/);
      const [link, token] = mail.text!.match(LINK)!;
      // The link the recipient got is the one the API shows, and its token is the recipient's.
      expect(link).toBe(links.get(to));
      expect(sha256Hex(token)).toBe(hashes.get(to));
      expect(mail.html).toContain(`href="${link}"`);
      expect(mail.text).toContain(`Hello ${to === 'ana@example.com' ? 'Ana' : 'Bea'},`);
      expect(mail.text).toContain('Taxes <b>2024</b> & "more"');
      expect(mail.html).toContain('Taxes &lt;b&gt;2024&lt;/b&gt; &amp; &quot;more&quot;');
      expect(mail.html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;');
      expect(mail.html).not.toMatch(/<b>|<script>/);
      expect(mail.html).toContain('Acme &lt;Accounting&gt; &amp; Co');
    }

    const listed = (await api.get(`/notifications?request_id=${request.id}`)).json();
    expect(listed.map((n: any) => [n.channel, n.address, n.status, n.attempt_count]).sort()).toEqual([
      ['EMAIL', 'ana@example.com', 'SENT', 1],
      ['EMAIL', 'bea@example.com', 'SENT', 1],
      ['SMS', '+15551234567', 'KEPT', 1],
    ]);
    const sms = listed.find((n: any) => n.channel === 'SMS');
    expect(sms.text).toMatch(LINK);
    expect(sms.html).toBeNull();
    // The stored copy is what was sent, and holds no secret but the link.
    const ana = listed.find((n: any) => n.address === 'ana@example.com');
    const sent = smtp.received.find((m) => m.envelopeTo[0] === 'ana@example.com')!.mail;
    expect(ana.text).toBe(sent.text);
    expect(ana.sent_at).not.toBeNull();
    const password = request.recipients[0].password as string;
    expect(JSON.stringify(listed)).not.toContain(password);
  });

  it('should write the invitation in the request language (Spanish)', async () => {
    await createRequest(t.app, tenant.apiKey, {
      name: 'Documentos',
      language: 'es',
      recipients: [{ first_name: 'Lucía', email: 'lucia@example.com' }],
    });
    await drain(t);
    expect(smtp.received).toHaveLength(1);
    const { mail } = smtp.received[0];
    expect(mail.subject).toMatch(/le pide documentos: Documentos$/);
    expect(mail.text).toContain('Hola, Lucía:');
    expect(mail.text).toContain('Abrir la solicitud: https://gather.test/r/');
    expect(mail.html).toContain('<html lang="es" dir="ltr">');
  });

  it('should send nothing with skip_initial_notification', async () => {
    const request = await createRequest(t.app, tenant.apiKey, {
      skip_initial_notification: true,
      recipients: [{ email: 'quiet@example.com' }],
    });
    await drain(t);
    expect(smtp.received).toHaveLength(0);
    expect((await api.get(`/notifications?request_id=${request.id}`)).json()).toEqual([]);
  });

  it('should retry a refused delivery on the backoff schedule and record every attempt', async () => {
    smtp.refuseWhen(() => true);
    const request = await createRequest(t.app, tenant.apiKey, { recipients: [{ email: 'busy@example.com' }] });
    await drain(t);
    expect(smtp.received).toHaveLength(0);
    let [notification] = (await api.get(`/notifications?request_id=${request.id}`)).json();
    expect(notification).toMatchObject({ status: 'PENDING', attempt_count: 1, sent_at: null });
    expect(notification.last_error).toMatch(/451/);
    expect(new Date(notification.next_attempt_at).getTime() - new Date(notification.updated_at).getTime()).toBe(
      NOTIFICATION_RETRY_DELAYS_MS[0],
    );
    // Not due yet: nothing is tried.
    await drain(t);
    expect((await api.get(`/notifications?request_id=${request.id}`)).json()).toMatchObject([{ attempt_count: 1 }]);

    smtp.refuseWhen(() => false);
    offsetMs += NOTIFICATION_RETRY_DELAYS_MS[0] + 1_000;
    await drain(t);
    expect(smtp.received.map((m) => m.envelopeTo)).toEqual([['busy@example.com']]);
    [notification] = (await api.get(`/notifications?request_id=${request.id}`)).json();
    expect(notification).toMatchObject({ status: 'SENT', attempt_count: 2, next_attempt_at: null });
  });

  it("should send a request's invitations in one job (one read, one record), a refused one retried alone", async () => {
    smtp.refuseWhen((to) => to.includes('later@example.com'));
    const request = await createRequest(t.app, tenant.apiKey, {
      recipients: ['first', 'later', 'last'].map((name) => ({ first_name: name, email: `${name}@example.com` })),
    });
    t.sql.reset();
    await drain(t);
    const count = (pattern: RegExp) => t.sql.statements.filter((sql) => pattern.test(sql)).length;
    expect(count(/^\s*insert into notification/)).toBe(1);
    expect(count(/from notification n where n\.id = any/)).toBe(1);
    expect(count(/^\s*update notification n/)).toBe(1);
    expect(smtp.received.map((m) => m.envelopeTo[0]).sort()).toEqual(['first@example.com', 'last@example.com']);
    const listed = (await api.get(`/notifications?request_id=${request.id}`)).json();
    const later = listed.find((n: any) => n.address === 'later@example.com');
    expect(later).toMatchObject({ status: 'PENDING', attempt_count: 1 });
    expect(listed.filter((n: any) => n.status === 'SENT')).toHaveLength(2);
    // The retry is a job of its own, keyed by its message.
    const jobs = await t.db.rows<{ key: string | null }>(
      `select key from graphile_worker.jobs where task_identifier = 'notification.send'`,
      [],
    );
    expect(jobs).toEqual([{ key: `notification:${later.id}` }]);

    smtp.refuseWhen(() => false);
    offsetMs += NOTIFICATION_RETRY_DELAYS_MS[0] + 1_000;
    await drain(t);
    expect(smtp.received.map((m) => m.envelopeTo[0])).toContain('later@example.com');
    const again = (await api.get(`/notifications?request_id=${request.id}`)).json();
    expect(again.find((n: any) => n.id === later.id)).toMatchObject({ status: 'SENT', attempt_count: 2 });
  });
});

describe('notifications without a mail server', () => {
  let t: TestApp;
  let acme: Tenant;
  let api: ReturnType<typeof client>;
  let requestId: string;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await createTenant(t.db, 'Acme');
    api = client(t.app, acme.apiKey);
    requestId = (
      await createRequest(t.app, acme.apiKey, { recipients: [{ first_name: 'Ana', email: 'ana@example.com' }] })
    ).id;
    await drain(t);
  });
  afterAll(() => t.close());

  it('should keep the rendered message, newest first, for GET /notifications', async () => {
    const later = await createRequest(t.app, acme.apiKey, {
      name: 'Second',
      recipients: [{ email: 'second@example.com' }],
    });
    await drain(t);
    const listed = (await api.get('/notifications?limit=2')).json();
    expect(listed.map((n: any) => n.request_id)).toEqual([later.id, requestId]);
    expect(listed[1]).toMatchObject({
      channel: 'EMAIL',
      kind: 'INVITATION',
      address: 'ana@example.com',
      status: 'KEPT',
      language: 'en-US',
      attempt_count: 1,
      sent_at: null,
      last_error: null,
    });
    expect(listed[1].subject).toContain('Tax documents 2024');
    expect(listed[1].text).toMatch(LINK);
    expect(listed[1].html).toContain('<a href="https://gather.test/r/');
    expect((await api.get('/notifications?limit=1')).json()).toHaveLength(1);
  });

  it('should list them in GraphQL for an ADMIN, and refuse a USER', async () => {
    const result = await api.graphql(
      `query ($id: ID) { notifications(first: 10, requestId: $id) { totalCount nodes { id kind status address requestId recipientId text } } }`,
      { id: requestId },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.notifications.totalCount).toBe(1);
    const [node] = result.data.notifications.nodes;
    expect(node).toMatchObject({ kind: 'INVITATION', status: 'KEPT', address: 'ana@example.com', requestId });
    const byNode = await api.graphql(`query ($id: ID!) { node(id: $id) { ... on Notification { id address } } }`, {
      id: node.id,
    });
    expect(byNode.data.node).toEqual({ id: node.id, address: 'ana@example.com' });

    const user = await createUser(t.app, acme.apiKey, { email: 'carla@acme.test', role: 'USER' });
    const asUser = client(t.app, user.apiKey);
    const refused = await asUser.graphql(`{ notifications(first: 5) { nodes { id } } }`);
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await asUser.get('/notifications')).statusCode).toBe(403);
    expect((await asUser.graphql(`query ($id: ID!) { node(id: $id) { id } }`, { id: node.id })).data.node).toBeNull();
  });

  it("should show another organization's admin none of them", async () => {
    const globex = await createTenant(t.db, 'Globex');
    const other = client(t.app, globex.apiKey);
    expect((await other.get('/notifications')).json()).toEqual([]);
    expect((await other.get(`/notifications?request_id=${requestId}`)).json()).toEqual([]);
    const result = await other.graphql(`{ notifications(first: 100) { totalCount } }`);
    expect(result.data.notifications.totalCount).toBe(0);
  });
});
