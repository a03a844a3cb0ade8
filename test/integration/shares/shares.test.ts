import { randomBytes } from 'node:crypto';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { storedObjects } from '../../support/documents';
import { createUser } from '../../support/fixtures';
import { multipart, pdfBytes } from '../../support/files';
import { startSmtpServer } from '../../support/smtp';
import { MAX_SHARE_FILES } from '../../../src/modules/shares/share.limits';

// File sharing through HTTP with the real parts: the owner's REST and GraphQL, the invitation read at
// a real SMTP server, the recipient's sign-in (a code from that server) and downloads on its own API
// and page, the download log, and the share's dates honoured by the timed work on a moved clock.

const DAY = 86_400_000;

describe('file sharing', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let tenant: Tenant;
  let owner: ReturnType<typeof client>;
  let offsetMs = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      { mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } },
      { clock: { now: () => new Date(Date.now() + offsetMs) } },
    );
    tenant = await createTenant(t.db, 'Acme');
    owner = client(t.app, tenant.apiKey);
    await owner.patch(`/organizations/${tenant.organizationId}/branding`, {
      primary_color: '#0a7d5a',
      sender_name: 'Acme Tax Team',
      support_email: 'help@acme.test',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    offsetMs = 0;
  });

  async function deliver(): Promise<void> {
    await t.app.jobs.runDue();
  }
  async function runJobs(): Promise<void> {
    await t.app.jobs.runDue();
  }
  async function mailTo(address: string, subject: RegExp) {
    await deliver();
    const mail = smtp.received
      .filter((m) => m.envelopeTo.includes(address) && subject.test(m.mail.subject ?? ''))
      .at(-1)?.mail;
    if (!mail) throw new Error(`no mail to ${address} matching ${subject}`);
    return mail;
  }
  const linkIn = (text: string) => /https:\/\/gather\.test\/s\/([A-Za-z0-9_-]+)/.exec(text)![1];
  const upload = (shareId: string, content: Buffer | string, filename: string) => {
    const { payload, headers } = multipart(content, { filename });
    return t.app.inject({
      method: 'POST',
      url: `/shares/${shareId}/files`,
      payload,
      headers: { ...headers, authorization: `Bearer ${tenant.apiKey}` },
    });
  };
  const recipientApi = (token: string, session?: string) => {
    const send = (method: 'GET' | 'POST', path: string, payload?: unknown) =>
      t.app.inject({
        method,
        url: `/s/${token}/api${path}`,
        payload: payload as never,
        headers: { 'user-agent': 'share-test/1.0', ...(session ? { authorization: `Bearer ${session}` } : {}) },
      });
    return {
      info: () => send('GET', ''),
      code: () => send('POST', '/code'),
      signIn: (body: object) => send('POST', '/session', body),
      share: () => send('GET', '/share'),
      file: (id: string) => send('GET', `/files/${id}`),
    };
  };

  async function createShare(body: Record<string, unknown> = {}) {
    const response = await owner.post('/shares', {
      title: 'Your 2025 tax return',
      customMessage: 'Here are the signed copies.',
      recipients: [
        { email: 'ana@example.com', firstName: 'Ana', authMethod: { type: 'EMAIL_ACCESS_CODE' } },
        { email: 'ben@example.com', firstName: 'Ben' },
      ],
      ...body,
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  it('should create, upload, send, sign in with a mailed code, download the same bytes and log each download', async () => {
    const share = await createShare({ language: 'es', expirationDate: new Date(Date.now() + 30 * DAY).toISOString() });
    expect(share).toMatchObject({
      title: 'Your 2025 tax return',
      status: 'DRAFT',
      language: 'es',
      files: [],
      downloads: [],
      downloadCount: 0,
      ownerId: tenant.userId,
    });
    expect(share.recipients.map((r: { authMethod: unknown }) => r.authMethod)).toEqual([
      { type: 'EMAIL', questionText: null },
      { type: 'UNSET', questionText: null },
    ]);
    // Not sent yet: the links name nothing.
    const [ana, ben] = share.recipients as Array<{ link: string; password: string }>;
    expect((await recipientApi(linkIn(ana.link)).info()).statusCode).toBe(404);
    // Nothing to send without files.
    const empty = await owner.post(`/shares/${share.id}/send`);
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].type).toBe('invalid_state');

    const pdf = await pdfBytes('Signed return');
    const big = randomBytes(3 * 1024 * 1024);
    expect((await upload(share.id, pdf, 'Return 2025.pdf')).statusCode).toBe(200);
    const withFiles = (await upload(share.id, big, 'workpapers.bin')).json();
    expect(withFiles.files.map((f: { name: string; size: number }) => [f.name, f.size])).toEqual([
      ['Return 2025.pdf', pdf.length],
      ['workpapers.bin', big.length],
    ]);

    const sent = await owner.post(`/shares/${share.id}/send`);
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ status: 'SENT', sentAt: expect.any(String) });

    // The invitation, in the share's language, branded, with the recipient's own link.
    const invitation = await mailTo('ana@example.com', /comparte archivos/);
    expect(invitation.subject).toContain('Your 2025 tax return');
    expect(invitation.text).toContain('Here are the signed copies.');
    expect(invitation.text).toContain('2 archivos');
    expect(invitation.text).toContain('Acme Tax Team');
    expect(invitation.html).toContain('#0a7d5a');
    const token = linkIn(invitation.text!);
    expect(`https://gather.test/s/${token}`).toBe(ana.link);
    // The stored copy does not hold the link.
    const [stored] = await t.orm.em
      .fork()
      .execute(`select text from notification where kind = 'SHARE_INVITATION' and address = 'ana@example.com'`);
    expect(stored.text).not.toContain(token);

    // Ana signs in with a code read at the SMTP server.
    const api = recipientApi(token);
    const info = (await api.info()).json();
    expect(info).toMatchObject({
      share: { title: 'Your 2025 tax return', language: 'es' },
      recipient: { first_name: 'Ana' },
      sign_in: { steps: ['code'], code_destination: 'a***@example.com' },
    });
    expect((await api.share()).statusCode).toBe(401);
    expect((await api.code()).statusCode).toBe(200);
    const codeMail = await mailTo('ana@example.com', /código/);
    const code = /\b(\d{6})\b/.exec(codeMail.text!)![1];
    expect((await api.signIn({ code: '000000' === code ? '111111' : '000000' })).statusCode).toBe(401);
    const signedIn = await api.signIn({ code });
    expect(signedIn.statusCode).toBe(200);
    const session = signedIn.json().session_token as string;
    expect(session).toMatch(/^gss_/);
    expect(signedIn.headers['set-cookie']).toContain(`Path=/s/${token}`);

    const mine = recipientApi(token, session);
    const view = (await mine.share()).json();
    expect(view).toMatchObject({
      title: 'Your 2025 tax return',
      message: 'Here are the signed copies.',
      branding: { primary_color: '#0a7d5a' },
    });
    const [pdfFile, bigFile] = view.files;
    const first = await mine.file(pdfFile.id);
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.equals(pdf)).toBe(true);
    expect(first.headers['content-disposition']).toContain('Return 2025.pdf');
    const second = await mine.file(bigFile.id);
    expect(second.rawPayload.equals(big)).toBe(true);

    // Ben's session opens Ben's link only; a request's session token opens no share.
    const benApi = recipientApi(linkIn(ben.link));
    const benSession = (await benApi.signIn({})).json().session_token;
    expect((await recipientApi(token, benSession).file(pdfFile.id)).statusCode).toBe(401);
    expect((await recipientApi(linkIn(ben.link), benSession).file(pdfFile.id)).statusCode).toBe(200);

    // The log, on the share: who, when, which file, newest first.
    const logged = (await owner.get(`/shares/${share.id}`)).json();
    expect(logged.downloadCount).toBe(3);
    expect(
      logged.downloads.map((d: { recipientEmail: string; fileName: string; fileId: string }) => [
        d.recipientEmail,
        d.fileName,
        d.fileId,
      ]),
    ).toEqual([
      ['ben@example.com', 'Return 2025.pdf', pdfFile.id],
      ['ana@example.com', 'workpapers.bin', bigFile.id],
      ['ana@example.com', 'Return 2025.pdf', pdfFile.id],
    ]);
    expect(logged.downloads[2]).toMatchObject({
      userAgent: 'share-test/1.0',
      downloadedAt: expect.any(String),
      size: pdf.length,
    });
    const graphql = await owner.graphql(
      `query ($id: ID!) { share(id: $id) { downloads(first: 2) { totalCount nodes { recipient { email } file { name } fileName } } } }`,
      { id: share.id },
    );
    expect(graphql.data.share.downloads).toEqual({
      totalCount: 3,
      nodes: [
        { recipient: { email: 'ben@example.com' }, file: { name: 'Return 2025.pdf' }, fileName: 'Return 2025.pdf' },
        { recipient: { email: 'ana@example.com' }, file: { name: 'workpapers.bin' }, fileName: 'workpapers.bin' },
      ],
    });
  });

  it('should serve the share page with the branding, the sign-in first and the files after (en/es)', async () => {
    const share = await createShare({
      recipients: [
        {
          email: 'cleo@example.com',
          firstName: 'Cleo',
          authMethod: { type: 'SECURITY_QUESTION', questionText: 'Your pet?', questionAnswer: 'Rex' },
        },
      ],
    });
    await upload(share.id, 'plain text bytes', 'notes.txt');
    await owner.post(`/shares/${share.id}/send`);
    const token = linkIn(share.recipients[0].link);
    const signInPage = await t.app.inject({ method: 'GET', url: `/s/${token}` });
    expect(signInPage.statusCode).toBe(200);
    expect(signInPage.headers['content-type']).toContain('text/html');
    expect(signInPage.body).toContain('Sign in to see the files');
    expect(signInPage.body).toContain('Your pet?');
    expect(signInPage.body).toContain('--accent: #0a7d5a');
    expect(signInPage.body).not.toContain('notes.txt');
    expect((await recipientApi(token).signIn({ answer: 'cat' })).statusCode).toBe(401);
    const signedIn = await recipientApi(token).signIn({ answer: ' rex ' });
    expect(signedIn.statusCode).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0];
    const filesPage = await t.app.inject({ method: 'GET', url: `/s/${token}`, headers: { cookie } });
    expect(filesPage.body).toContain('Files shared with you');
    expect(filesPage.body).toContain(`href="/s/${token}/api/files/`);
    expect(filesPage.body).toContain('notes.txt');
    expect(filesPage.body).toContain('help@acme.test');

    const spanish = await createShare({ language: 'es', recipients: [{ email: 'dora@example.com' }] });
    await upload(spanish.id, 'bytes', 'a.txt');
    await owner.post(`/shares/${spanish.id}/send`);
    const page = await t.app.inject({ method: 'GET', url: `/s/${linkIn(spanish.recipients[0].link)}` });
    expect(page.headers['set-cookie']).toBeDefined();
    expect(page.body).toContain('Archivos compartidos con usted');
    expect(page.body).toContain('<html lang="es" dir="ltr">');
    expect(
      (await t.app.inject({ method: 'GET', url: '/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).statusCode,
    ).toBe(404);
  });

  it('should refuse past dates, a deletion before the expiration and bad recipients with 422', async () => {
    const past = new Date(Date.now() - DAY).toISOString();
    const future = new Date(Date.now() + 10 * DAY).toISOString();
    const refused = await owner.post('/shares', {
      title: 'x',
      recipients: [{ firstName: 'No address' }],
      expirationDate: past,
      deletionDate: new Date(Date.now() + 5 * DAY).toISOString(),
    });
    expect(refused.statusCode).toBe(422);
    expect(
      refused
        .json()
        .detail.map((d: { loc: string[] }) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.expirationDate', 'body.recipients.0.email']);
    const late = await owner.post('/shares', {
      title: 'x',
      recipients: [{ email: 'a@example.com' }],
      expirationDate: future,
      deletionDate: new Date(Date.now() + 5 * DAY).toISOString(),
    });
    expect(late.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'deletionDate'], type: 'out_of_range' }),
    ]);
    const share = await createShare({ expirationDate: future });
    const patch = await owner.patch(`/shares/${share.id}`, { deletionDate: past });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().detail[0].loc).toEqual(['body', 'deletionDate']);
    expect((await owner.patch(`/shares/${share.id}`, { title: 'Renamed', deletionDate: null })).json()).toMatchObject({
      title: 'Renamed',
      deletionDate: null,
    });
    expect((await owner.post('/shares', { title: 'x', recipients: [] })).statusCode).toBe(422);
  });

  it('should answer 410 after the expiration and delete the files from storage after the deletion date', async () => {
    const before = storedObjects(t).length;
    const share = await createShare({
      expirationDate: new Date(Date.now() + 2 * DAY).toISOString(),
      deletionDate: new Date(Date.now() + 5 * DAY).toISOString(),
      recipients: [{ email: 'eve@example.com' }],
    });
    await upload(share.id, 'expiring bytes', 'expiring.txt');
    await owner.post(`/shares/${share.id}/send`);
    expect(storedObjects(t)).toHaveLength(before + 1);
    const token = linkIn(share.recipients[0].link);
    const session = (await recipientApi(token).signIn({})).json().session_token;

    expect((await recipientApi(token, session).share()).statusCode).toBe(200);
    offsetMs = DAY;
    await runJobs();
    expect((await owner.get(`/shares/${share.id}`)).json().status).toBe('SENT');

    offsetMs = 2 * DAY + 60_000;
    // The date alone closes the page, before the job runs.
    expect((await recipientApi(token).info()).statusCode).toBe(410);
    await runJobs();
    expect((await owner.get(`/shares/${share.id}`)).json().status).toBe('EXPIRED');
    const gone = await t.app.inject({ method: 'GET', url: `/s/${token}` });
    expect(gone.statusCode).toBe(410);
    expect(gone.body).toContain('This share has expired');
    expect((await owner.post(`/shares/${share.id}/send`)).statusCode).toBe(422);
    expect(storedObjects(t)).toHaveLength(before + 1);

    offsetMs = 5 * DAY + 60_000;
    await runJobs();
    const deleted = (await owner.get(`/shares/${share.id}`)).json();
    expect(deleted).toMatchObject({ status: 'DELETED', files: [], filesDeletedAt: expect.any(String) });
    expect(storedObjects(t)).toHaveLength(before);
    expect((await t.app.inject({ method: 'GET', url: `/s/${token}` })).body).toContain('These files were deleted');
  });

  it('should keep a USER to its own shares, list them newest first, and delete one with its files', async () => {
    const member = await createUser(t.app, tenant.apiKey, { email: 'member@acme.test', role: 'USER' });
    const memberApi = client(t.app, member.apiKey);
    const mine = (
      await memberApi.post('/shares', { title: 'Member share', recipients: [{ email: 'x@example.com' }] })
    ).json();
    const listed = (await memberApi.get('/shares')).json();
    expect(listed.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    const adminList = (await owner.get('/shares?limit=2')).json();
    expect(adminList[0].id).toBe(mine.id);
    expect(adminList[0]).not.toHaveProperty('downloads');
    const adminShare = await createShare();
    expect((await memberApi.get(`/shares/${adminShare.id}`)).statusCode).toBe(404);

    const before = storedObjects(t).length;
    await upload(mine.id, 'to be deleted', 'gone.txt');
    expect(storedObjects(t)).toHaveLength(before + 1);
    expect((await memberApi.delete(`/shares/${mine.id}`)).statusCode).toBe(204);
    expect((await memberApi.get(`/shares/${mine.id}`)).json()).toEqual({ detail: 'Share not found' });
    expect(storedObjects(t)).toHaveLength(before);
  });

  it('should refuse the file past MAX_SHARE_FILES and work the same over GraphQL', async () => {
    const created = await owner.graphql(
      `mutation ($input: ShareCreateInput!) { shareCreate(input: $input) { share { id status recipients { authMethod } } userErrors { field code } } }`,
      {
        input: {
          title: 'GraphQL share',
          recipients: [{ email: 'gql@example.com', authMethod: { type: 'SECURITY_QUESTION' } }],
        },
      },
    );
    expect(created.data.shareCreate.userErrors).toEqual([
      { field: ['input', 'recipients', '0', 'authMethod'], code: 'REQUIRED' },
    ]);
    const ok = await owner.graphql(
      `mutation ($input: ShareCreateInput!) { shareCreate(input: $input) { share { id status } userErrors { code } } }`,
      {
        input: { title: 'GraphQL share', recipients: [{ email: 'gql@example.com' }], language: 'ES' },
      },
    );
    const id = ok.data.shareCreate.share.id;
    for (let i = 0; i < MAX_SHARE_FILES; i++)
      await t.orm.em
        .fork()
        .execute(
          `insert into share_file (id, organization_id, share_id, file_id, position, created_at) select gen_random_uuid(), organization_id, ?, id, ?, now() from stored_file where organization_id = ? limit 1`,
          [id, i, tenant.organizationId],
        );
    const refused = await upload(id, 'one too many', 'extra.txt');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'too_many' });
    const sent = await owner.graphql(
      `mutation ($id: ID!) { shareSend(id: $id) { share { status sentAt } userErrors { code } } }`,
      { id },
    );
    expect(sent.data.shareSend).toMatchObject({ share: { status: 'SENT' }, userErrors: [] });
    const updated = await owner.graphql(
      `mutation ($id: ID!) { shareUpdate(id: $id, input: { title: "Renamed" }) { share { title } } }`,
      { id },
    );
    expect(updated.data.shareUpdate.share.title).toBe('Renamed');
    const listed = await owner.graphql(`{ shares(first: 1) { totalCount nodes { id files { name } } } }`);
    expect(listed.data.shares.totalCount).toBeGreaterThan(1);
    const deleted = await owner.graphql(`mutation ($id: ID!) { shareDelete(id: $id) { deletedShareId } }`, { id });
    expect(deleted.data.shareDelete.deletedShareId).toBe(id);
  });
});
