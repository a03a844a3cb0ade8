import { client, createTenant, createTestApp, type Tenant, type TestApp } from '../../support/app';
import { createContract, docxBytes } from '../../support/files';
import { CONTRACT_EDITOR_LINK_HOURS } from '../../../src/modules/contracts/contract.limits';

// The contract editor at a contract's annotationUrl (docs/console.md): a link signed for its reader that opens the
// page with no header to set, reads and saves the contract in the shapes of GET and PATCH /contracts/{id} for that
// contract alone, and ends (410, with the way to a new link). What the page does in a browser: console.e2e.ts.

let t: TestApp;
let tenant: Tenant;
let api: ReturnType<typeof client>;
let offsetMs = 0;

beforeAll(async () => {
  t = await createTestApp({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
  tenant = await createTenant(t.db);
  api = client(t.app, tenant.apiKey);
});
afterEach(() => {
  offsetMs = 0;
});
afterAll(() => t.close());

/** The editor link GET /contracts/{id} gives, as a path with its token. */
async function editorLink(id: string, key = api): Promise<{ path: string; token: string }> {
  const url = new URL((await key.get(`/contracts/${id}`)).json().annotationUrl);
  return { path: url.pathname, token: url.searchParams.get('token')! };
}

const inject = (method: 'GET' | 'PATCH', url: string, payload?: unknown) =>
  t.app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as never }) });

const LAYOUT = {
  page: 1,
  position: { offset_x: 72.5, offset_y: 100.25, anchor_point: 'TOP_LEFT' },
  style: { width: 180, height: 40 },
};

describe('a contract editor link', () => {
  it('should be the annotationUrl of REST and GraphQL, signed for its reader, the same within the hour', async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const rest = (await api.get(`/contracts/${id}`)).json().annotationUrl;
    expect(rest).toMatch(
      new RegExp(`^https://gather\\.test/contracts/${id}/edit\\?token=\\d+\\.${tenant.userId}\\.[\\w-]{43}$`),
    );
    const gql = await api.graphql('query ($id: ID!) { contract(id: $id) { annotationUrl } }', { id });
    expect(gql.data.contract.annotationUrl).toBe(rest);
    const ends = Number(new URL(rest).searchParams.get('token')!.split('.')[0]) * 1000;
    expect(ends - Date.now()).toBeGreaterThan(CONTRACT_EDITOR_LINK_HOURS * 3_600_000 - 1000);
    expect(ends - Date.now()).toBeLessThanOrEqual((CONTRACT_EDITOR_LINK_HOURS + 1) * 3_600_000);
  });

  it('should open the page without a header, under a policy with no unsafe-inline and the worker from Gather', async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const { path, token } = await editorLink(id);
    const page = await inject('GET', `${path}?token=${token}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).not.toContain('unsafe-');
    expect(policy).toContain("worker-src 'self'");
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page.body).not.toMatch(/<script>|<style|style="/);
    const worker = /data-worker="(\/app\/editor\/assets\/pdf\.worker\.[\w-]+\.mjs)"/.exec(page.body)?.[1];
    const script = /<script src="(\/app\/editor\/assets\/editor\.[\w-]+\.js)">/.exec(page.body)?.[1];
    for (const asset of [worker!, script!]) {
      const answer = await inject('GET', asset);
      expect([asset, answer.statusCode, answer.headers['content-type']]).toEqual([
        asset,
        200,
        'text/javascript; charset=utf-8',
      ]);
    }
  });

  it('should read and save what GET /contracts/{id} answers and PATCH accepts, and serve the PDF', async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const { token } = await editorLink(id);
    const base = `/contracts/${id}/edit`;
    expect((await inject('GET', `${base}/contract?token=${token}`)).json()).toEqual({
      ...(await api.get(`/contracts/${id}`)).json(),
      annotationUrl: `https://gather.test/contracts/${id}/edit`,
    });
    const body = {
      fields: [{ type: 'signature', assigned_to: { email: 'ana@example.com' }, layout: LAYOUT }],
      annotations: [{ type: 'date', defaultValue: '2026-12-01', layout: { ...LAYOUT, page: 1 } }],
    };
    const saved = await inject('PATCH', `${base}/contract?token=${token}`, body);
    expect(saved.statusCode).toBe(200);
    const got = (await api.get(`/contracts/${id}`)).json();
    expect({ fields: got.fields, annotations: got.annotations }).toEqual(body);
    expect(saved.json().fields).toEqual(body.fields);

    const file = await inject('GET', `${base}/file?token=${token}`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it("should refuse a bad body as PATCH does, and a DOCX's file with 415", async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const { token } = await editorLink(id);
    const bad = await inject('PATCH', `/contracts/${id}/edit/contract?token=${token}`, {
      fields: [{ type: 'stamp', layout: LAYOUT }],
    });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.statusCode).toBeLessThan(500);
    const docx = await api.post('/contracts?name=Terms.docx', await docxBytes(), {
      'content-type': 'application/octet-stream',
    });
    const docxLink = await editorLink(docx.json().id);
    const file = await inject('GET', `/contracts/${docx.json().id}/edit/file?token=${docxLink.token}`);
    expect(file.statusCode).toBe(415);
  });

  it('should end: the page says so (410) and offers a new link through the console, the API answers 410', async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const { path, token } = await editorLink(id);
    offsetMs = (CONTRACT_EDITOR_LINK_HOURS + 1) * 3_600_000;
    const page = await inject('GET', `${path}?token=${token}`);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This editor link has expired');
    expect(page.body).toContain(`href="/app/contracts/${id}/edit"`);
    const read = await inject('GET', `/contracts/${id}/edit/contract?token=${token}`);
    expect(read.statusCode).toBe(410);
    expect(read.json().detail).toMatch(/expired/);
    expect((await inject('PATCH', `/contracts/${id}/edit/contract?token=${token}`, { fields: [] })).statusCode).toBe(
      410,
    );
  });

  it('should open that contract alone: another contract, a changed token or none is refused', async () => {
    const { id } = await createContract(t.app, tenant.apiKey);
    const other = await createContract(t.app, tenant.apiKey, 'Other.pdf');
    const { token } = await editorLink(id);
    expect((await inject('GET', `/contracts/${other.id}/edit/contract?token=${token}`)).statusCode).toBe(404);
    expect((await inject('GET', `/contracts/${other.id}/edit?token=${token}`)).statusCode).toBe(404);
    const changed = token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await inject('GET', `/contracts/${id}/edit/contract?token=${changed}`)).statusCode).toBe(404);
    // The last character's spare bits flipped: the same bytes once decoded, still not the link that was given.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spare = token.replace(/.$/, (c) => alphabet[alphabet.indexOf(c) ^ 1]);
    expect(Buffer.from(spare.split('.')[2], 'base64url')).toEqual(Buffer.from(token.split('.')[2], 'base64url'));
    expect((await inject('GET', `/contracts/${id}/edit/contract?token=${spare}`)).statusCode).toBe(404);
    expect((await inject('GET', `/contracts/${id}/edit/file`)).statusCode).toBe(404);
    // Without a token the page goes through the console, which makes a link with its session.
    const bare = await inject('GET', `/contracts/${id}/edit`);
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe(`/app/contracts/${id}/edit`);
  });

  it("should show nothing of another organization's contract, even through its own user's link", async () => {
    const stranger = await createTenant(t.db);
    const { id } = await createContract(t.app, tenant.apiKey);
    const theirs = await createContract(t.app, stranger.apiKey, 'Theirs.pdf');
    const { token } = await editorLink(theirs.id, client(t.app, stranger.apiKey));
    // Their link names their contract; on ours it is not valid.
    expect((await inject('GET', `/contracts/${id}/edit/contract?token=${token}`)).statusCode).toBe(404);
    expect((await inject('PATCH', `/contracts/${id}/edit/contract?token=${token}`, { fields: [] })).statusCode).toBe(
      404,
    );
    expect((await api.get(`/contracts/${id}`)).json().fields).toEqual([]);
  });
});
