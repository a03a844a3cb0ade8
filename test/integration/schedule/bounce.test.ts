import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createRequest } from '../../support/fixtures';
import { startSmtpServer } from '../../support/smtp';

describe('a reminder whose mail bounces', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    smtp.bounceWhen((address) => address.startsWith('gone'));
    t = await createTestApp({ mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } });
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const send = async () => {
    await t.app.jobs.runDue();
  };

  it('should go again by SMS to a recipient with a phone, shown in the reminder list and the activity log', async () => {
    const request = await createRequest(t.app, tenant.apiKey, {
      recipients: [
        { first_name: 'Gus', email: 'gone@example.com', phone: '+15550001111', auth_method: { type: 'NONE' } },
        { first_name: 'Ana', email: 'ana@example.com', auth_method: { type: 'NONE' } },
        { first_name: 'Nia', email: 'gone.too@example.com', auth_method: { type: 'NONE' } },
      ],
    });
    await send();
    const api = client(t.app, tenant.apiKey);
    const reminder = (await api.post(`/requests/${request.id}/reminders`, {})).json();
    await send();

    const [gus, ana, nia] = (await api.get(`/requests/${request.id}/reminders`)).json()[0].recipients;
    const bounced = gus.messages[0];
    expect(gus.messages).toEqual([
      {
        notification_id: bounced.notification_id,
        channel: 'EMAIL',
        address: 'gone@example.com',
        status: 'FAILED',
        fallback_for: null,
      },
      {
        notification_id: expect.any(String),
        channel: 'SMS',
        address: '+15550001111',
        status: 'KEPT',
        fallback_for: bounced.notification_id,
      },
    ]);
    expect(ana.messages).toEqual([expect.objectContaining({ channel: 'EMAIL', status: 'SENT' })]);
    // Without a phone there is nothing to fall back to: the bounce stays as it is, not retried.
    expect(nia.messages).toEqual([expect.objectContaining({ channel: 'EMAIL', status: 'FAILED' })]);
    const [failed] = await t.orm.em
      .fork()
      .execute<{ attempts: number; last_error: string }[]>(
        'select attempts, last_error from notification where id = ?',
        [bounced.notification_id],
      );
    expect(failed).toMatchObject({ attempts: 1, last_error: expect.stringContaining('550') });

    const entry = (await api.get(`/requests/${request.id}/activity?limit=20`))
      .json()
      .find((e: { action: string }) => e.action === 'reminder.sms_fallback');
    expect(entry).toMatchObject({
      actor: { type: 'SYSTEM' },
      details: { reminder_id: reminder.id, bounced_notification_id: bounced.notification_id },
    });
    // The mail server saw the invitations and the reminder of the address that exists only.
    expect(smtp.received.map((m) => m.envelopeTo[0]).sort()).toEqual(['ana@example.com', 'ana@example.com']);
  });
});
