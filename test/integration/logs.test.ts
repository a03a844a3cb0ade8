import { createLogger } from '../../src/kernel/logger';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../support/app';
import { buildWorld } from '../support/world';
import { portal, requestWithLink, tokenOf } from '../support/portal';
import { startReceiver } from '../support/receiver';
import { startSmtpServer } from '../support/smtp';

const METRICS_TOKEN = 'metrics-token-logs-0123456789';

// A full run with every log line captured (at trace level): each line a request makes says who and
// what without carrying any secret the run created.
describe('the log', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const lines: string[] = [];
  beforeAll(async () => {
    smtp = await startSmtpServer();
    receiver = await startReceiver();
    const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
    t = await createTestApp(
      { metricsToken: METRICS_TOKEN, mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } },
      { loggerInstance: logger },
    );
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await receiver.close();
  });

  it('should hold one line per request and none of the secrets of a full run', async () => {
    const secrets: Record<string, string> = { 'admin API key': tenant.apiKey, 'metrics token': METRICS_TOKEN };
    const api = client(t.app, tenant.apiKey);
    const world = await buildWorld(t, tenant, receiver.url, 'Logs');
    secrets['recipient session (world)'] = world.recipientSession;
    const worldRequest = (await api.get(`/requests/${world.request}`)).json();
    for (const [i, recipient] of (
      worldRequest.recipients as Array<{ request_link: string; password: string }>
    ).entries()) {
      secrets[`recipient token ${i}`] = tokenOf(recipient.request_link);
      secrets[`recipient password ${i}`] = recipient.password;
    }
    const key = await api.graphql(`mutation ($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) { secret } }`, {
      input: { userId: tenant.userId, name: 'second' },
    });
    secrets['second API key'] = key.data.apiKeyCreate.secret;
    const webhook = (await api.post('/webhooks', { endpoint: receiver.url, topics: ['request.created'] })).json();
    secrets['webhook secret'] = webhook.secret;

    // A recipient signing in with a mailed code, then with the link's password.
    const { token, password } = await requestWithLink(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Ana', email: 'ana@example.com', auth_method: { type: 'EMAIL' } }],
    });
    secrets['coded recipient token'] = token;
    secrets['coded recipient password'] = password;
    expect((await portal(t.app, token).sendCode()).statusCode).toBe(200);
    await t.app.jobs.runDue();
    const code = /^(\d{6})$/m.exec(smtp.received.find((m) => /code/.test(m.mail.subject ?? ''))!.mail.text!)![1];
    secrets['sign-in code'] = code;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await portal(t.app, token).signIn({ code: wrong })).statusCode).toBe(401);
    const session = (await portal(t.app, token).signIn({ code })).json().session_token;
    secrets['recipient session (code)'] = session;
    secrets['recipient session (password)'] = (
      await portal(t.app, token).signIn({ code: password })
    ).json().session_token;
    expect((await portal(t.app, token, session).request()).statusCode).toBe(200);
    // The page, an unknown path under a link, a key in the legacy header, a wrong metrics token.
    expect((await t.app.inject({ method: 'GET', url: `/r/${token}` })).statusCode).toBe(200);
    await t.app.inject({ method: 'GET', url: `/r/${token}/nothing-here?code=${code}` });
    expect(
      (await t.app.inject({ method: 'GET', url: '/whoami', headers: { 'x-api-key': secrets['second API key'] } }))
        .statusCode,
    ).toBe(200);
    await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}x` } });
    await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    // Deliveries signed with the webhook's secret, and the mails with the links.
    await t.app.jobs.runDue();
    expect(receiver.received.length).toBeGreaterThan(0);

    expect(Object.values(secrets).every((secret) => typeof secret === 'string' && secret.length >= 6)).toBe(true);
    const leaks = Object.entries(secrets).flatMap(([what, secret]) =>
      lines.filter((line) => line.includes(secret)).map((line) => `${what}: ${line}`),
    );
    expect(leaks).toEqual([]);

    const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    // One line per request: each request id once (and the run made a few dozen).
    expect(new Set(requests.map((line) => line.reqId)).size).toBe(requests.length);
    expect(requests.length).toBeGreaterThan(30);
    for (const line of requests) {
      expect(line).toEqual({
        level: 30,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        reqId: expect.any(String),
        msg: 'request',
        method: expect.any(String),
        route: expect.any(String),
        status: expect.any(Number),
        durationMs: expect.any(Number),
        ...(line.organizationId && { organizationId: line.organizationId }),
        ...(line.route === '/graphql' && { operations: expect.any(Array) }),
      });
    }
    expect(requests).toContainEqual(expect.objectContaining({ route: '/r/:token/api/session', status: 200 }));
    expect(requests).toContainEqual(
      expect.objectContaining({ route: '/r/:token/api/request', status: 200, organizationId: tenant.organizationId }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({
        route: '/requests/:request_id',
        method: 'GET',
        status: 200,
        organizationId: tenant.organizationId,
      }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({
        route: '/graphql',
        operations: ['(anonymous)'],
        organizationId: tenant.organizationId,
      }),
    );
  });
});
