import { randomUUID } from 'node:crypto';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { portal, requestWithLink } from '../../support/portal';
import { startSmtpServer } from '../../support/smtp';
import { startTwilio } from '../../support/twilio';
import { twilioSignature } from '../../../src/modules/notifications/notification.twilio';
import { NOTIFICATION_RETRY_DELAYS_MS } from '../../../src/modules/notifications/notification.limits';

// SMS through Twilio's Messages API, the vendor played by a real HTTP server on loopback that answers as Twilio
// documents: what reaches it, its status callbacks (signed), retries on its 5xx and 429, and the fallback between SMS
// and mail both ways. Mail goes to a real SMTP server.

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'twilio-auth-token-for-tests';
const FROM = '+15005550006';
const PUBLIC_URL = 'https://gather.test';

describe('SMS through Twilio', () => {
  let t: TestApp;
  let tenant: Tenant;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let offsetMs = 0;
  const api = () => client(t.app, tenant.apiKey);
  const deliver = () => t.app.jobs.runDue();
  const sql = <T = Record<string, any>>(statement: string, params: unknown[] = []) =>
    t.orm.em.fork().execute<T[]>(statement, params);
  const messagesTo = (to: string) => twilio.received.filter((sent) => sent.form.To === to);

  /** Posts a status callback as Twilio does: form-encoded, signed with the auth token unless told otherwise. */
  const callback = (notificationId: string, params: Record<string, string>, signature?: string) => {
    const url = `${PUBLIC_URL}/sms/twilio/status/${notificationId}`;
    return t.app.inject({
      method: 'POST',
      url: `/sms/twilio/status/${notificationId}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilioSignature(AUTH_TOKEN, url, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
  };
  const statusParams = (sid: string, status: string, extra: Record<string, string> = {}) => ({
    AccountSid: ACCOUNT_SID,
    ApiVersion: '2010-04-01',
    From: FROM,
    MessageSid: sid,
    MessageStatus: status,
    SmsSid: sid,
    SmsStatus: status,
    To: '+15551234567',
    ...extra,
  });
  const notification = async (id: string) =>
    (
      await sql(
        'select status, attempts, last_error, next_attempt_at, provider_message_id, delivery_status from notification where id = ?',
        [id],
      )
    )[0];

  beforeAll(async () => {
    twilio = await startTwilio();
    smtp = await startSmtpServer();
    t = await createTestApp(
      {
        publicUrl: PUBLIC_URL,
        mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' },
        sms: { twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, sender: { from: FROM }, apiUrl: twilio.url } },
      },
      { clock: { now: () => new Date(Date.now() + offsetMs) } },
    );
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
    await twilio.close();
    await smtp.close();
  });
  beforeEach(async () => {
    await deliver();
    twilio.received.length = 0;
    smtp.received.length = 0;
    twilio.answerWith(() => ({ kind: 'created' }));
  });

  it("should send a recipient's sign-in code to the Messages API, form-encoded with basic auth", async () => {
    const { request, token } = await requestWithLink(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Bo', phone: '+15551234567', auth_method: { type: 'SMS' } }],
    });
    await deliver();
    twilio.received.length = 0;
    expect((await portal(t.app, token).sendCode()).statusCode).toBe(200);
    await deliver();

    expect(twilio.received).toHaveLength(1);
    const [sent] = twilio.received;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const [row] = await sql<{ id: string }>(
      `select id from notification where request_id = ? and kind = 'ONE_TIME_CODE'`,
      [request.id],
    );
    expect(sent.form).toEqual({
      To: '+15551234567',
      From: FROM,
      Body: expect.stringMatching(/^Your code for Tax documents 2024: \d{6} /),
      StatusCallback: `${PUBLIC_URL}/sms/twilio/status/${row.id}`,
    });
    expect(await notification(row.id)).toMatchObject({
      status: 'SENT',
      attempts: 1,
      provider_message_id: expect.stringMatching(/^SM[0-9a-f]{32}$/),
    });
    // The code that reached the vendor signs the recipient in.
    const code = /: (\d{6}) /.exec(sent.form.Body)![1];
    expect((await portal(t.app, token).signIn({ code })).statusCode).toBe(200);

    const listed = (await api().get(`/notifications?request_id=${request.id}&limit=10`)).json();
    expect(listed.find((n: { id: string }) => n.id === row.id)).toMatchObject({
      channel: 'SMS',
      status: 'SENT',
      provider_message_id: (await notification(row.id)).provider_message_id,
      delivery_status: null,
    });
  });

  it('should record the status callbacks signed with the auth token, and refuse any other with 403', async () => {
    await createRequest(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Cy', phone: '+15551234567', auth_method: { type: 'NONE' } }],
    });
    await deliver();
    const [invitation] = twilio.received;
    const id = invitation.form.StatusCallback.split('/').pop()!;
    const { provider_message_id: sid } = await notification(id);

    const unsigned = await t.app.inject({
      method: 'POST',
      url: `/sms/twilio/status/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(statusParams(sid, 'undelivered')).toString(),
    });
    expect(unsigned.statusCode).toBe(403);
    expect(unsigned.json()).toEqual({ detail: 'The request is not signed by the SMS provider' });
    // Signed with another key, or for another notification's URL, or over other parameters.
    const wrongKey = twilioSignature(
      'another-token-entirely',
      `${PUBLIC_URL}/sms/twilio/status/${id}`,
      statusParams(sid, 'undelivered'),
    );
    expect((await callback(id, statusParams(sid, 'undelivered'), wrongKey)).statusCode).toBe(403);
    const otherUrl = twilioSignature(
      AUTH_TOKEN,
      `${PUBLIC_URL}/sms/twilio/status/${randomUUID()}`,
      statusParams(sid, 'undelivered'),
    );
    expect((await callback(id, statusParams(sid, 'undelivered'), otherUrl)).statusCode).toBe(403);
    const otherParams = twilioSignature(
      AUTH_TOKEN,
      `${PUBLIC_URL}/sms/twilio/status/${id}`,
      statusParams(sid, 'delivered'),
    );
    expect((await callback(id, statusParams(sid, 'undelivered'), otherParams)).statusCode).toBe(403);
    expect(await notification(id)).toMatchObject({ status: 'SENT', delivery_status: null });

    expect((await callback(id, statusParams(sid, 'sent'))).statusCode).toBe(204);
    expect(await notification(id)).toMatchObject({ status: 'SENT', delivery_status: 'sent' });
    expect((await callback(id, statusParams(sid, 'delivered'))).statusCode).toBe(204);
    // A callback that arrives late does not move the status back; one about another message changes nothing.
    expect((await callback(id, statusParams(sid, 'sent'))).statusCode).toBe(204);
    expect((await callback(id, statusParams(`SM${'f'.repeat(32)}`, 'failed'))).statusCode).toBe(204);
    expect(await notification(id)).toMatchObject({
      status: 'SENT',
      delivery_status: 'delivered',
      provider_message_id: sid,
    });
  });

  it("should retry on the vendor's 500 and 429, no sooner than its Retry-After, then send", async () => {
    const answers = ['server-error', 'rate-limited'] as const;
    twilio.answerWith(() => {
      const next = answers[twilio.received.length - 1];
      return next === 'rate-limited'
        ? { kind: next, retryAfterSeconds: 7200 }
        : next
          ? { kind: next }
          : { kind: 'created' };
    });
    await createRequest(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Di', phone: '+15557654321', auth_method: { type: 'NONE' } }],
    });
    await deliver();
    const id = twilio.received[0].form.StatusCallback.split('/').pop()!;
    const first = await notification(id);
    expect(first).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      last_error: 'Twilio answered 500 (error 20500): Internal Server Error',
    });
    const now = () => Date.now() + offsetMs;
    expect(new Date(first.next_attempt_at).getTime() - now()).toBeGreaterThan(NOTIFICATION_RETRY_DELAYS_MS[0] - 5000);

    offsetMs += NOTIFICATION_RETRY_DELAYS_MS[0] + 1000;
    await deliver();
    const second = await notification(id);
    expect(second).toMatchObject({
      status: 'PENDING',
      attempts: 2,
      last_error: expect.stringContaining('429 (error 20429)'),
    });
    // Two hours, as the vendor asked, rather than the five minutes of the usual second delay.
    expect(new Date(second.next_attempt_at).getTime() - now()).toBeGreaterThan(7200_000 - 5000);

    offsetMs += NOTIFICATION_RETRY_DELAYS_MS[1] + 1000;
    await deliver();
    expect(messagesTo('+15557654321')).toHaveLength(2);
    offsetMs += 7200_000;
    await deliver();
    expect(messagesTo('+15557654321')).toHaveLength(3);
    expect(await notification(id)).toMatchObject({ status: 'SENT', attempts: 3, last_error: null });
    offsetMs = 0;
  });

  describe('fallback between SMS and mail', () => {
    const reminderOf = async (requestId: string) => {
      const reminder = (await api().post(`/requests/${requestId}/reminders`, {})).json();
      await deliver();
      return reminder;
    };
    const recipientMessages = async (requestId: string) =>
      (await api().get(`/requests/${requestId}/reminders`)).json()[0].recipients[0].messages;
    const activity = async (requestId: string, action: string) =>
      (await api().get(`/requests/${requestId}/activity?limit=50`))
        .json()
        .find((entry: { action: string }) => entry.action === action);

    it('should mail a reminder whose SMS the vendor refuses (400), when the recipient has an address', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        recipients: [
          {
            first_name: 'Ed',
            email: 'ed@example.com',
            phone: '+15550001234',
            send_method: 'SMS',
            auth_method: { type: 'NONE' },
          },
        ],
      });
      await deliver();
      twilio.answerWith(() => ({
        kind: 'invalid',
        code: 21211,
        message: "The 'To' number +15550001234 is not a valid phone number.",
      }));
      const reminder = await reminderOf(request.id);
      const [sms, mail] = await recipientMessages(request.id);
      expect(sms).toMatchObject({ channel: 'SMS', status: 'FAILED', fallback_for: null });
      expect(mail).toEqual({
        notification_id: expect.any(String),
        channel: 'EMAIL',
        address: 'ed@example.com',
        status: 'SENT',
        fallback_for: sms.notification_id,
      });
      // Refused for good: one attempt, not retried.
      expect(await notification(sms.notification_id)).toMatchObject({
        attempts: 1,
        last_error: "Twilio answered 400 (error 21211): The 'To' number +15550001234 is not a valid phone number.",
      });
      expect(smtp.received.map((m) => [m.envelopeTo[0], m.mail.subject])).toEqual([
        ['ed@example.com', expect.stringMatching(/Reminder/)],
      ]);
      expect(await activity(request.id, 'reminder.email_fallback')).toMatchObject({
        actor: { type: 'SYSTEM' },
        details: { reminder_id: reminder.id, bounced_notification_id: sms.notification_id },
      });
    });

    it('should mail a reminder whose SMS the vendor reports undelivered', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        recipients: [
          {
            first_name: 'Flo',
            email: 'flo@example.com',
            phone: '+15550004321',
            send_method: 'SMS',
            auth_method: { type: 'NONE' },
          },
        ],
      });
      await deliver();
      await reminderOf(request.id);
      const [sms] = await recipientMessages(request.id);
      expect(sms).toMatchObject({ channel: 'SMS', status: 'SENT' });
      expect(smtp.received).toEqual([]);
      const { provider_message_id: sid } = await notification(sms.notification_id);
      const undelivered = statusParams(sid, 'undelivered', { ErrorCode: '30003', To: '+15550004321' });
      expect((await callback(sms.notification_id, undelivered)).statusCode).toBe(204);
      expect(await notification(sms.notification_id)).toMatchObject({
        status: 'FAILED',
        delivery_status: 'undelivered',
        last_error: 'Twilio reported undelivered (error 30003)',
      });
      await deliver();
      const [, mail] = await recipientMessages(request.id);
      expect(mail).toMatchObject({
        channel: 'EMAIL',
        address: 'flo@example.com',
        status: 'SENT',
        fallback_for: sms.notification_id,
      });
      expect(smtp.received.map((m) => m.envelopeTo[0])).toEqual(['flo@example.com']);
      // Reported again, it falls back no second time.
      expect((await callback(sms.notification_id, undelivered)).statusCode).toBe(204);
      await deliver();
      expect(await recipientMessages(request.id)).toHaveLength(2);
    });

    it('should fall back when the undelivered report overtakes the answer that handed the SMS over', async () => {
      const request = await createRequest(t.app, tenant.apiKey, {
        recipients: [
          {
            first_name: 'Hal',
            email: 'hal@example.com',
            phone: '+15550005555',
            send_method: 'SMS',
            auth_method: { type: 'NONE' },
          },
        ],
      });
      await deliver();
      twilio.answerWith(() => ({
        kind: 'created',
        // Twilio reports before its 201 reached the service: the message is still PENDING then.
        before: async (sid, form) => {
          const id = form.StatusCallback.split('/').pop()!;
          const reported = await callback(id, statusParams(sid, 'failed', { ErrorCode: '30006', To: form.To }));
          expect(reported.statusCode).toBe(204);
          expect(await notification(id)).toMatchObject({ status: 'PENDING', delivery_status: 'failed' });
        },
      }));
      await reminderOf(request.id);
      const [sms, mail] = await recipientMessages(request.id);
      expect(await notification(sms.notification_id)).toMatchObject({ status: 'FAILED', delivery_status: 'failed' });
      expect(mail).toMatchObject({ channel: 'EMAIL', address: 'hal@example.com', fallback_for: sms.notification_id });
      expect(smtp.received.map((m) => m.envelopeTo[0])).toEqual(['hal@example.com']);
    });

    it('should send to the vendor a reminder whose mail bounces, when the recipient has a phone', async () => {
      smtp.bounceWhen((address) => address.startsWith('gone'));
      const request = await createRequest(t.app, tenant.apiKey, {
        recipients: [
          { first_name: 'Gus', email: 'gone@example.com', phone: '+15550009999', auth_method: { type: 'NONE' } },
        ],
      });
      await deliver();
      await reminderOf(request.id);
      const [mail, sms] = await recipientMessages(request.id);
      expect(mail).toMatchObject({ channel: 'EMAIL', status: 'FAILED' });
      expect(sms).toMatchObject({
        channel: 'SMS',
        address: '+15550009999',
        status: 'SENT',
        fallback_for: mail.notification_id,
      });
      expect(messagesTo('+15550009999').map((sent) => sent.form.Body)).toEqual([expect.stringMatching(/remind/i)]);
      smtp.bounceWhen(() => false);
    });
  });
});
