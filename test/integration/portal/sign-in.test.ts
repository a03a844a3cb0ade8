import type { LightMyRequestResponse } from 'fastify';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { createUser } from '../../support/fixtures';
import { pdfBytes } from '../../support/files';
import { portal, requestWithLink, signedIn, tokenOf } from '../../support/portal';
import { startSmtpServer } from '../../support/smtp';
import {
  CODE_RESEND_SECONDS,
  CODE_VALID_MINUTES,
  MAX_CODES_PER_HOUR,
  MAX_SIGN_IN_FAILURES,
  SESSION_HOURS,
  SIGN_IN_LOCK_MINUTES,
} from '../../../src/modules/portal/portal.limits';
import { MASKED } from '../../../src/modules/notifications/notification.templates';
import type { SmsProvider } from '../../../src/modules/notifications/notification.channels';

// The recipient's sign-in and messages through HTTP with the real parts: codes go out through the
// notification worker to a real SMTP server (and to an SMS provider behind the provider interface),
// are read back from what arrived, and every timed rule is checked by moving the app's clock.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('recipient sign-in and messages', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let tenant: Tenant;
  let owner: ReturnType<typeof client>;
  let offsetMs = 0;
  const sms: { to: string; text: string }[] = [];
  const smsProvider: SmsProvider = {
    async send(message) {
      sms.push(message);
      return { status: 'SENT' };
    },
  };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      { mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } },
      { clock: { now: () => new Date(Date.now() + offsetMs) }, sms: smsProvider },
    );
    tenant = await createTenant(t.db, 'Acme');
    owner = client(t.app, tenant.apiKey);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(async () => {
    await deliver();
    smtp.received.length = 0;
    sms.length = 0;
  });

  const later = (ms: number) => {
    offsetMs += ms;
  };
  const sql = <T = Record<string, any>>(statement: string, params: unknown[] = []) =>
    t.orm.em.fork().execute<T[]>(statement, params);

  async function deliver(): Promise<void> {
    await t.app.jobs.runDue();
  }

  /** The mails delivered to an address whose subject matches, oldest first. */
  async function mailsTo(address: string, subject: RegExp) {
    await deliver();
    return smtp.received
      .filter((m) => m.envelopeTo.includes(address) && subject.test(m.mail.subject ?? ''))
      .map((m) => m.mail);
  }

  /** Asks for a code and reads it from the mail the SMTP server received. */
  async function mailedCode(token: string, address = 'ana@example.com'): Promise<string> {
    const sent = await portal(t.app, token).sendCode();
    expect(sent.statusCode).toBe(200);
    const mails = await mailsTo(address, /code|código/);
    const code = /^(\d{6})$/m.exec(mails[mails.length - 1].text!)?.[1];
    if (!code) throw new Error(`no code in ${mails[mails.length - 1].text}`);
    return code;
  }

  /** A six-digit code that is not `code`. */
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  const retryAfter = (response: LightMyRequestResponse) => Number(response.headers['retry-after']);

  const withAuth = (auth: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
    requestWithLink(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', auth_method: auth }],
      ...overrides,
    });

  describe('EMAIL codes', () => {
    it('should mail a 6-digit code that signs in once, within its 10 minutes, and take the password in place of a code', async () => {
      const { request, token, password } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      const info = (await p.info()).json();
      expect(info.sign_in).toEqual({ steps: ['code'], question_text: null, code_destination: 'a***@example.com' });

      const sent = await p.sendCode();
      expect(sent.statusCode).toBe(200);
      expect(sent.json()).toEqual({ sent_to: 'a***@example.com', expires_at: expect.any(String) });
      const validFor = new Date(sent.json().expires_at).getTime() - t.app.contexts.settings.clock.now().getTime();
      expect(validFor).toBeGreaterThan(CODE_VALID_MINUTES * MINUTE - 10_000);
      expect(validFor).toBeLessThanOrEqual(CODE_VALID_MINUTES * MINUTE);
      const [mail] = await mailsTo('ana@example.com', /code/);
      expect(mail.subject).toBe('Your code for Tax documents 2024');
      expect(mail.text).toContain('Your sign-in code for "Tax documents 2024" is:');
      expect(mail.text).toContain(`It is valid for ${CODE_VALID_MINUTES} minutes.`);
      const code = /^(\d{6})$/m.exec(mail.text!)![1];
      expect(mail.html).toContain(`>${code}</p>`);

      // Nothing needs the code but the session call: no session without it.
      expect((await p.signIn()).statusCode).toBe(422);
      const signIn = await p.signIn({ code });
      expect(signIn.statusCode).toBe(200);
      const { session_token: session } = signIn.json();
      expect(signIn.headers['set-cookie']).toMatch(
        new RegExp(`^gather_session=${session}; Path=/r/${token}; Max-Age=\\d+; HttpOnly; SameSite=Strict; Secure$`),
      );
      expect((await portal(t.app, token, session).request()).statusCode).toBe(200);

      // A code works once.
      const replay = await p.signIn({ code });
      expect(replay.statusCode).toBe(401);
      expect(replay.json()).toEqual({ detail: 'Wrong or expired code' });

      // A code is refused once its time is up, right or not.
      later(CODE_RESEND_SECONDS * 1000 + 1000);
      const second = await mailedCode(token);
      later(CODE_VALID_MINUTES * MINUTE + 1000);
      expect((await p.signIn({ code: second })).statusCode).toBe(401);

      // The password the owner may read out over the phone stands in for a code.
      expect((await p.signIn({ code: password })).statusCode).toBe(200);

      // The stored copies show neither the codes nor the session; they show the mask.
      const stored = await sql<{
        kind: string;
        subject: string;
        text: string;
        html: string;
        secrets_sealed: string | null;
      }>('select kind, subject, text, html, secrets_sealed from notification where request_id = ? and kind = ?', [
        request.id,
        'ONE_TIME_CODE',
      ]);
      expect(stored).toHaveLength(2);
      for (const row of stored) {
        expect(row.text).toContain(MASKED);
        expect(row.html).toContain(MASKED);
        expect(row.secrets_sealed).toBeNull();
      }
      const everything = JSON.stringify(await sql('select * from notification where request_id = ?', [request.id]));
      for (const secret of [code, second, session, password]) expect(everything).not.toContain(secret);
      const listed = JSON.stringify((await owner.get(`/notifications?request_id=${request.id}`)).json());
      expect(listed).toContain(MASKED);
      for (const secret of [code, second, session]) expect(listed).not.toContain(secret);
    });

    it('should write the code mail in the request language (Spanish)', async () => {
      const { token } = await withAuth({ type: 'EMAIL' }, { name: 'Documentos', language: 'es' });
      const code = await mailedCode(token);
      const [mail] = await mailsTo('ana@example.com', /código/);
      expect(mail.subject).toBe('Su código para Documentos');
      expect(mail.text).toContain('Su código de acceso para «Documentos» es:');
      expect(mail.text).toContain(`Vale ${CODE_VALID_MINUTES} minutos.`);
      expect(mail.html).toContain('<html lang="es" dir="ltr">');
      expect((await portal(t.app, token).signIn({ code })).statusCode).toBe(200);
    });
  });

  it('should send an SMS recipient its code through the SMS provider, masked in the table', async () => {
    const { request, token } = await requestWithLink(t.app, tenant.apiKey, {
      recipients: [{ first_name: 'Bo', phone: '+15551234567', auth_method: { type: 'SMS' } }],
    });
    const p = portal(t.app, token);
    expect((await p.info()).json().sign_in).toEqual({
      steps: ['code'],
      question_text: null,
      code_destination: '+1******4567',
    });
    const sent = await p.sendCode();
    expect(sent.json().sent_to).toBe('+1******4567');
    await deliver();

    const codes = sms.filter((m) => /code/.test(m.text));
    expect(codes.map((m) => m.to)).toEqual(['+15551234567']);
    const code = /: (\d{6}) /.exec(codes[0].text)![1];
    expect(codes[0].text).toBe(`Your code for Tax documents 2024: ${code} (valid ${CODE_VALID_MINUTES} min)`);
    expect(smtp.received).toEqual([]);

    const [row] = await sql<{ channel: string; address: string; status: string; text: string; html: string | null }>(
      "select channel, address, status, text, html from notification where request_id = ? and kind = 'ONE_TIME_CODE'",
      [request.id],
    );
    expect(row).toEqual({
      channel: 'SMS',
      address: '+15551234567',
      status: 'SENT',
      text: `Your code for Tax documents 2024: ${MASKED} (valid ${CODE_VALID_MINUTES} min)`,
      html: null,
    });
    expect((await p.signIn({ code })).statusCode).toBe(200);
  });

  describe('security question', () => {
    const question = {
      type: 'SECURITY_QUESTION',
      question_text: 'Name of your first pet?',
      question_answer: 'Rex the Dog',
    };

    it('should show the question and take its answer without case or surrounding space', async () => {
      const { token } = await withAuth(question);
      const p = portal(t.app, token);
      expect((await p.info()).json().sign_in).toEqual({
        steps: ['question'],
        question_text: 'Name of your first pet?',
        code_destination: null,
      });
      // No code step: nothing to send.
      expect((await p.sendCode()).statusCode).toBe(422);
      expect((await p.signIn()).statusCode).toBe(422);
      const refused = await p.signIn({ answer: 'Rex the Cat' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ detail: 'Wrong answer' });
      // Spaces inside the answer count.
      expect((await p.signIn({ answer: 'rexthedog' })).statusCode).toBe(401);
      expect((await p.signIn({ answer: '  rEX THE dog \n' })).statusCode).toBe(200);
    });

    it('should ask for the answer and a code with mfa_enabled, and need both', async () => {
      const { token, request } = await withAuth(question, { mfa_enabled: true });
      expect(request.mfa_enabled).toBe(true);
      // The code step has its own link, as for EMAIL and SMS recipients.
      expect(request.recipients[0].mfa_link).toBe(`${request.recipients[0].request_link}/verify`);
      const p = portal(t.app, token);
      expect((await p.info()).json().sign_in).toEqual({
        steps: ['question', 'code'],
        question_text: 'Name of your first pet?',
        code_destination: 'a***@example.com',
      });
      const code = await mailedCode(token);
      expect((await p.signIn({ answer: 'rex the dog' })).statusCode).toBe(422);
      expect((await p.signIn({ code })).statusCode).toBe(422);
      expect((await p.signIn({ answer: 'Felix', code })).statusCode).toBe(401);
      expect((await p.signIn({ answer: 'rex the dog', code: wrong(code) })).statusCode).toBe(401);
      // The code was not spent by the attempts that failed.
      expect((await p.signIn({ answer: 'rex the dog', code })).statusCode).toBe(200);
    });
  });

  describe('lockout', () => {
    it('should lock the code step for 15 minutes after 5 wrong codes in a row, even for the right code', async () => {
      const { token } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      const code = await mailedCode(token);
      for (let i = 1; i < MAX_SIGN_IN_FAILURES; i++)
        expect((await p.signIn({ code: wrong(code) })).json()).toEqual({ detail: 'Wrong or expired code' });
      const fifth = await p.signIn({ code: wrong(code) });
      expect(fifth.statusCode).toBe(401);
      expect(fifth.json().detail).toBe(
        `Wrong code; after ${MAX_SIGN_IN_FAILURES} wrong attempts in a row it is locked for ${SIGN_IN_LOCK_MINUTES} minutes`,
      );

      const locked = await p.signIn({ code });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().detail).toMatch(/locked for 15 minutes/);
      // Measured on the app's clock, which stands still between the two calls but for the test's own run time.
      expect(retryAfter(locked)).toBeGreaterThan(SIGN_IN_LOCK_MINUTES * 60 - 10);
      expect(retryAfter(locked)).toBeLessThanOrEqual(SIGN_IN_LOCK_MINUTES * 60);

      later(SIGN_IN_LOCK_MINUTES * MINUTE - 30_000);
      expect((await p.signIn({ code })).statusCode).toBe(429);
      later(31_000);
      // The code itself is past its 10 minutes now; a new one signs in.
      expect((await p.signIn({ code })).statusCode).toBe(401);
      later(CODE_RESEND_SECONDS * 1000);
      expect((await p.signIn({ code: await mailedCode(token) })).statusCode).toBe(200);
    });

    it('should count failures in a row only: a success starts the count again', async () => {
      const { token, password } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      for (let round = 0; round < 2; round++) {
        for (let i = 1; i < MAX_SIGN_IN_FAILURES; i++)
          expect((await p.signIn({ code: '123456' })).json()).toEqual({ detail: 'Wrong or expired code' });
        expect((await p.signIn({ code: password })).statusCode).toBe(200);
      }
    });

    it('should lock the question step the same way', async () => {
      const { token } = await withAuth({ type: 'SECURITY_QUESTION', question_text: 'Pet?', question_answer: 'Rex' });
      const p = portal(t.app, token);
      for (let i = 0; i < MAX_SIGN_IN_FAILURES; i++) expect((await p.signIn({ answer: 'Felix' })).statusCode).toBe(401);
      const locked = await p.signIn({ answer: 'Rex' });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().detail).toBe(
        `Too many wrong attempts: the answer step is locked for ${SIGN_IN_LOCK_MINUTES} minutes`,
      );
      later(SIGN_IN_LOCK_MINUTES * MINUTE + 1000);
      expect((await p.signIn({ answer: 'Rex' })).statusCode).toBe(200);
    });
  });

  describe('send limits', () => {
    it('should send one code per 30 seconds and 5 an hour, answering 429 with Retry-After', async () => {
      const { request, token } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      expect((await p.sendCode()).statusCode).toBe(200);
      const soon = await p.sendCode();
      expect(soon.statusCode).toBe(429);
      expect(soon.json().detail).toMatch(/less than 30 seconds ago/);
      expect(retryAfter(soon)).toBeGreaterThan(0);
      expect(retryAfter(soon)).toBeLessThanOrEqual(CODE_RESEND_SECONDS);

      for (let sent = 1; sent < MAX_CODES_PER_HOUR; sent++) {
        later(CODE_RESEND_SECONDS * 1000 + 1000);
        expect((await p.sendCode()).statusCode).toBe(200);
      }
      later(CODE_RESEND_SECONDS * 1000 + 1000);
      const sixth = await p.sendCode();
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().detail).toBe(`At most ${MAX_CODES_PER_HOUR} codes are sent in an hour; try again later`);
      // The oldest of the five leaves the hour about 5 × 31 seconds from now.
      const wait = HOUR / 1000 - MAX_CODES_PER_HOUR * (CODE_RESEND_SECONDS + 1);
      expect(retryAfter(sixth)).toBeGreaterThan(wait - 10);
      expect(retryAfter(sixth)).toBeLessThanOrEqual(wait);
      expect(await mailsTo('ana@example.com', /code/)).toHaveLength(MAX_CODES_PER_HOUR);

      later(retryAfter(sixth) * 1000);
      expect((await p.sendCode()).statusCode).toBe(200);
      const [{ count }] = await sql<{ count: string }>(
        "select count(*) from notification where request_id = ? and kind = 'ONE_TIME_CODE'",
        [request.id],
      );
      expect(Number(count)).toBe(MAX_CODES_PER_HOUR + 1);
    });

    it('should send exactly one code for 10 parallel calls', async () => {
      const { request, token } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      const answers = await Promise.all(Array.from({ length: 10 }, () => p.sendCode()));
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, ...Array(9).fill(429)]);
      const codes = await sql(
        'select id from recipient_code where recipient_id = (select id from recipient where request_id = ?)',
        [request.id],
      );
      expect(codes).toHaveLength(1);
      expect(await mailsTo('ana@example.com', /code/)).toHaveLength(1);
    });

    it('should count every one of 10 parallel wrong sign-ins and let none past the limit', async () => {
      const { token } = await withAuth({ type: 'EMAIL' });
      const p = portal(t.app, token);
      const code = await mailedCode(token);
      const answers = await Promise.all(Array.from({ length: 10 }, () => p.signIn({ code: wrong(code) })));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_SIGN_IN_FAILURES);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10 - MAX_SIGN_IN_FAILURES);
      expect((await p.signIn({ code })).statusCode).toBe(429);
    });

    it('should let one of 10 parallel sign-ins with the same code in, and no more', async () => {
      const { token } = await withAuth({ type: 'EMAIL' });
      const code = await mailedCode(token);
      const answers = await Promise.all(Array.from({ length: 10 }, () => portal(t.app, token).signIn({ code })));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      // The others are replays: wrong codes, counted until the step locks.
      expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_SIGN_IN_FAILURES);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10 - 1 - MAX_SIGN_IN_FAILURES);
    });
  });

  describe('sessions', () => {
    it('should last 12 hours, then answer 401', async () => {
      const { token } = await requestWithLink(t.app, tenant.apiKey);
      const signIn = await portal(t.app, token).signIn();
      const { session_token: session, expires_at } = signIn.json();
      const now = t.app.contexts.settings.clock.now().getTime();
      expect(new Date(expires_at).getTime()).toBeGreaterThan(now + SESSION_HOURS * HOUR - 10_000);
      expect(new Date(expires_at).getTime()).toBeLessThanOrEqual(now + SESSION_HOURS * HOUR);
      const maxAge = Number(/Max-Age=(\d+)/.exec(signIn.headers['set-cookie'] as string)![1]);
      expect(maxAge).toBeGreaterThan(SESSION_HOURS * 3600 - 10);
      expect(maxAge).toBeLessThanOrEqual(SESSION_HOURS * 3600);

      const p = portal(t.app, token, session);
      later(SESSION_HOURS * HOUR - MINUTE);
      expect((await p.request()).statusCode).toBe(200);
      later(2 * MINUTE);
      const expired = await p.request();
      expect(expired.statusCode).toBe(401);
      expect(expired.headers['www-authenticate']).toBe('Bearer');
      expect((await p.graphql('{ recipientRequest { id } }')).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });

    it("should end no later than the request's expiration date", async () => {
      const expiration = new Date(t.app.contexts.settings.clock.now().getTime() + 2 * HOUR);
      expiration.setMilliseconds(0);
      const due = new Date(expiration.getTime() - HOUR);
      const { token } = await requestWithLink(t.app, tenant.apiKey, {
        due_date: due.toISOString(),
        expiration_date: expiration.toISOString(),
      });
      expect((await portal(t.app, token).info()).json().request.due_date).toBe(due.toISOString());
      const signIn = await portal(t.app, token).signIn();
      // The request as the recipient sees it writes its times in RFC 3339, as every other answer does.
      const seen = (await portal(t.app, token, signIn.json().session_token).submit()).json();
      expect([seen.due_date, seen.expiration_date]).toEqual([due.toISOString(), expiration.toISOString()]);
      expect(seen.submissions[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(signIn.json().expires_at).toBe(expiration.toISOString());
      const maxAge = Number(/Max-Age=(\d+)/.exec(signIn.headers['set-cookie'] as string)![1]);
      expect(maxAge).toBeGreaterThan(2 * 3600 - 10);
      expect(maxAge).toBeLessThanOrEqual(2 * 3600);
      const p = portal(t.app, token, signIn.json().session_token);
      later(2 * HOUR + 1000);
      expect((await p.request()).statusCode).toBe(401);
      expect((await portal(t.app, token).info()).statusCode).toBe(410);
      expect((await portal(t.app, token).signIn()).statusCode).toBe(410);
    });

    it("should end with the link: a regenerated link's old token is 404 and its sessions 401", async () => {
      const { request, token } = await requestWithLink(t.app, tenant.apiKey);
      const p = await signedIn(t.app, token);
      expect((await p.request()).statusCode).toBe(200);
      const regenerated = await owner.post(
        `/requests/${request.id}/recipients/${request.recipients[0].recipient.id}/link`,
      );
      expect(regenerated.statusCode).toBe(200);
      const newToken = tokenOf(regenerated.json().request_link);

      expect((await portal(t.app, token).info()).statusCode).toBe(404);
      expect((await p.request()).statusCode).toBe(404);
      const oldSessionNewLink = await portal(t.app, newToken, p.session).request();
      expect(oldSessionNewLink.statusCode).toBe(401);
      expect((await signedIn(t.app, newToken).then((q) => q.request())).statusCode).toBe(200);
    });
  });

  describe("the owner's and the recipient's messages", () => {
    it('should mail "completed" to the owner and collaborators, and "changes requested" with the message and link to the recipient', async () => {
      const colleague = await createUser(t.app, tenant.apiKey, { email: 'colleague@example.com', firstName: 'Col' });
      const { request, items } = await requestWithLink(t.app, tenant.apiKey, {
        name: 'Taxes & more',
        collaborators: [colleague.userId],
      });
      const link = request.recipients[0].request_link as string;
      const p = await signedIn(t.app, tokenOf(link));
      await p.upload(items[0].id, await pdfBytes());
      await p.answer(items[1].id, 'None');
      expect((await p.submit()).json().state).toBe('COMPLETE_AND_SUBMITTED');

      const ownerEmail = (await sql<{ email: string }>('select email from app_user where id = ?', [tenant.userId]))[0]
        .email;
      for (const address of [ownerEmail, 'colleague@example.com']) {
        const mails = await mailsTo(address, /./);
        expect(mails.map((m) => m.subject)).toEqual(['Completed: Taxes & more']);
        expect(mails[0].text).toContain('Ana Diaz completed every item of "Taxes & more".');
        expect(mails[0].text).toContain(`Request ${request.id} is ready to verify.`);
        expect(mails[0].html).toContain('Ana Diaz completed every item of &quot;Taxes &amp; more&quot;.');
      }
      // A submission tells the owner, not the recipient (who got only its invitation).
      expect((await mailsTo('ana@example.com', /./)).map((m) => m.subject)).toEqual([
        expect.stringMatching(/requests documents: Taxes & more$/),
      ]);
      smtp.received.length = 0;

      const rejected = await owner.post(`/requests/${request.id}/reject`, {
        message: 'Please send the 2024 W-2,\nnot 2023.',
        item_ids: [items[0].id],
      });
      expect(rejected.statusCode).toBe(200);
      const [changes] = await mailsTo('ana@example.com', /./);
      expect(changes.subject).toBe('Changes requested: Taxes & more');
      expect(changes.text).toContain('Hello Ana,');
      expect(changes.text).toContain('> Please send the 2024 W-2,\n> not 2023.');
      expect(changes.text).toContain('Items to redo:\n\n- W-2');
      expect(changes.text).toContain(`Open the request: ${link}`);
      expect(changes.html).toContain(`href="${link}"`);
      // The link in the mail opens the request again.
      expect((await p.request()).json()).toMatchObject({ state: 'REJECTED', can_change: true });
    });

    it('should mail "submitted" for a partial submission, in the request language', async () => {
      const { request, token } = await requestWithLink(t.app, tenant.apiKey, { name: 'Documentos', language: 'es' });
      const p = await signedIn(t.app, token);
      expect((await p.submit()).json().state).toBe('PARTIALLY_SUBMITTED');
      const ownerEmail = (await sql<{ email: string }>('select email from app_user where id = ?', [tenant.userId]))[0]
        .email;
      const [mail] = await mailsTo(ownerEmail, /./);
      expect(mail.subject).toBe('Enviada: Documentos');
      expect(mail.text).toContain('Ana Diaz envió «Documentos».');
      expect(mail.text).toContain(`Solicitud ${request.id}`);
    });
  });

  it("should log the recipient's visit, sign-in and work as RECIPIENT entries with its address", async () => {
    const from = { remoteAddress: '203.0.113.7', headers: { 'user-agent': 'Phone/1.0' } };
    const { request, token, items } = await requestWithLink(t.app, tenant.apiKey);
    expect((await portal(t.app, token, undefined, from).info()).statusCode).toBe(200);
    const p = await signedIn(t.app, token, from);
    await p.upload(items[0].id, await pdfBytes());
    await p.answer(items[1].id, 'None');
    await p.submit('All there');

    const [recipient] = await sql<{ id: string }>('select id from recipient where request_id = ?', [request.id]);
    await t.app.jobs.runDue();
    const activity = (await owner.get(`/requests/${request.id}/activity`)).json() as {
      action: string;
      actor: Record<string, unknown>;
      details: Record<string, unknown>;
    }[];
    const byRecipient = activity.filter((entry) => entry.actor.type === 'RECIPIENT').reverse();
    expect(byRecipient.map((entry) => entry.action)).toEqual([
      'recipient.opened',
      'recipient.signed_in',
      'document.uploaded',
      'item.updated',
      'item.updated',
      'request.submitted',
      'request.completed',
    ]);
    for (const entry of byRecipient)
      expect(entry.actor).toMatchObject({
        type: 'RECIPIENT',
        id: recipient.id,
        name: 'Ana Diaz',
        ip: '203.0.113.7',
        user_agent: 'Phone/1.0',
      });
    expect(byRecipient[1].details).toMatchObject({ steps: [] });
    // Opening the link again is not a new entry.
    await portal(t.app, token, undefined, from).info();
    expect((await owner.get(`/requests/${request.id}/activity`)).json()).toHaveLength(activity.length);
  });
});
