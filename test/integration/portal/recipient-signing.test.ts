import { rmSync } from 'node:fs';
import { createLogger } from '../../../src/kernel/logger';
import { client, createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { storedObjects } from '../../support/documents';
import { createContract } from '../../support/files';
import { pagesText, verifyPdfSignature } from '../../support/pdf-signature';
import { requestWithLink, signedIn } from '../../support/portal';
import { Contract, type ContractField } from '../../../src/modules/contracts/contract.entities';
import { pngBytes } from '../../support/png';

// A recipient signs an E_SIGNATURE item through the recipient API: the signed PDF becomes the item's
// document, verifiable, and the owner hears of it.

const FIELDS: ContractField[] = [
  {
    id: 'full-name',
    type: 'TEXT',
    assignedTo: { email: 'ana@example.com' },
    layout: {
      page: 1,
      position: { offsetX: 50, offsetY: 100, anchorPoint: 'TOP_LEFT' },
      style: { width: 200, height: 20 },
    },
  },
  {
    id: 'sig',
    type: 'SIGNATURE',
    layout: {
      page: 1,
      position: { offsetX: 50, offsetY: 50, anchorPoint: 'BOTTOM_LEFT' },
      style: { width: 150, height: 40 },
    },
  },
  { id: 'bob-sig', type: 'SIGNATURE', assignedTo: { email: 'bob@example.com' } },
];

describe('recipient signing', () => {
  let t: TestApp;
  let tenant: Tenant;
  let contractId: string;
  // Error lines only: a missing file must leave one.
  const errors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(
      {},
      { loggerInstance: createLogger('error', { write: (line: string) => void errors.push(line) }) },
    );
    tenant = await createTenant(t.db, 'Acme');
    contractId = (await createContract(t.app, tenant.apiKey)).id;
    await t.db.transaction((tx) => tx.update(Contract, contractId, { fields: FIELDS }));
  });
  afterAll(() => t.close());

  const signingRequest = () =>
    requestWithLink(t.app, tenant.apiKey, {
      items: [
        { type: 'E_SIGNATURE', name: 'Engagement letter', contract_id: contractId },
        { type: 'UPLOAD', name: 'ID' },
      ],
    });

  it("should show the recipient its fields, serve the contract, and keep the signed PDF as the item's document", async () => {
    const { request, token, items } = await signingRequest();
    const p = await signedIn(t.app, token);
    const view = (await p.request()).json();
    // Each with its place on the PDF, in the spec's layout shape, for the signing page to put it there.
    expect(view.items[0].signature_fields).toEqual([
      {
        id: 'full-name',
        type: 'TEXT',
        placeholder: null,
        layout: {
          page: 1,
          position: { offset_x: 50, offset_y: 100, anchor_point: 'TOP_LEFT' },
          style: { width: 200, height: 20 },
        },
      },
      {
        id: 'sig',
        type: 'SIGNATURE',
        placeholder: null,
        layout: {
          page: 1,
          position: { offset_x: 50, offset_y: 50, anchor_point: 'BOTTOM_LEFT' },
          style: { width: 150, height: 40 },
        },
      },
    ]);
    const contract = await p.get(`/items/${items[0].id}/contract`);
    expect(contract.statusCode).toBe(200);
    expect(contract.headers['content-type']).toBe('application/pdf');
    expect(contract.headers['content-disposition']).toMatch(/^inline/);

    const signed = await t.app.inject({
      method: 'POST',
      url: `${p.base}/items/${items[0].id}/sign`,
      headers: { authorization: `Bearer ${p.session}`, 'user-agent': 'PortalTest/1.0' },
      payload: { fields: { 'full-name': 'Ana Diaz' }, signature: { type: 'TYPED', text: 'Ana Diaz' } },
    });
    expect(signed.statusCode).toBe(200);
    expect(signed.json()).toMatchObject({
      status: 'COMPLETE',
      documents: [{ file_name: 'Engagement letter.signed.pdf', content_type: 'application/pdf', mine: true }],
    });
    const pdf = (await p.get(`/documents/${signed.json().documents[0].id}`)).rawPayload;
    expect(verifyPdfSignature(pdf)).toMatchObject({ valid: true, coversWholeFile: true });
    const audit = (await pagesText(pdf)).at(-1)!;
    expect(audit).toContain('Ana Diaz');
    expect(audit).toContain('PortalTest/1.0');

    const topics = await t.orm.em
      .fork()
      .execute<{ topic: string; actor_type: string }[]>('select topic from event where request_id = ? order by seq', [
        request.id,
      ]);
    expect(topics.map((e) => e.topic)).toEqual([
      'request.created',
      'contract.signed',
      'document.uploaded',
      'item.updated',
    ]);
    // The owner downloads what was signed.
    const owned = (await client(t.app, tenant.apiKey).get(`/requests/${request.id}/documents`)).json();
    expect(owned).toHaveLength(1);
  });

  it("should serve the contract's PDF for the session's own items alone", async () => {
    const { token, items } = await signingRequest();
    const p = await signedIn(t.app, token);
    // Another request's item of the same organization, and another organization's.
    const other = await signingRequest();
    const globex = await createTenant(t.db, 'Globex');
    const theirs = await requestWithLink(t.app, globex.apiKey, {
      items: [{ type: 'E_SIGNATURE', name: 'Theirs', contract_id: (await createContract(t.app, globex.apiKey)).id }],
    });
    for (const itemId of [other.items[0].id, theirs.items[0].id, '00000000-0000-4000-8000-000000000000']) {
      const refused = await p.get(`/items/${itemId}/contract`);
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toMatchObject({ detail: 'Item not found' });
    }
    // An item of its own that is no contract is a clear 422.
    expect((await p.get(`/items/${items[1].id}/contract`)).statusCode).toBe(422);
    expect((await p.get(`/items/${items[0].id}/contract`)).statusCode).toBe(200);
  });

  it('should take a drawn signature, and refuse what is not a PNG, foreign fields and other kinds of item', async () => {
    const { token, items } = await signingRequest();
    const p = await signedIn(t.app, token);
    const sign = (payload: unknown, itemId = items[0].id) =>
      t.app.inject({
        method: 'POST',
        url: `${p.base}/items/${itemId}/sign`,
        headers: { authorization: `Bearer ${p.session}` },
        payload: payload as never,
      });
    const notPng = await sign({
      fields: { 'full-name': 'Ana' },
      signature: { type: 'DRAWN', png_base64: Buffer.from('GIF89a....').toString('base64') },
    });
    expect(notPng.statusCode).toBe(422);
    expect(notPng.json().detail[0].loc).toEqual(['body', 'signature']);
    const foreign = await sign({
      fields: { 'full-name': 'Ana', 'bob-sig': 'x' },
      signature: { type: 'TYPED', text: 'Ana' },
    });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().detail[0].loc).toEqual(['body', 'fields', 'bob-sig']);
    expect((await sign({ signature: { type: 'TYPED', text: 'Ana' } }, items[1].id)).statusCode).toBe(422);
    expect((await sign({ fields: {}, signature: { type: 'TYPED' } })).statusCode).toBe(422);
    // Nothing was kept for the refusals.
    expect((await p.request()).json().items[0]).toMatchObject({ status: 'INCOMPLETE', documents: [] });

    const drawn = await sign({
      fields: { 'full-name': 'Ana' },
      signature: { type: 'DRAWN', png_base64: pngBytes(60, 20).toString('base64') },
    });
    expect(drawn.statusCode).toBe(200);
    expect(drawn.json().status).toBe('COMPLETE');
  });

  it('should sign when the body gives every field a value, the signature field too (API-DECISIONS body)', async () => {
    const { token, items } = await signingRequest();
    const p = await signedIn(t.app, token);
    const signed = await t.app.inject({
      method: 'POST',
      url: `${p.base}/items/${items[0].id}/sign`,
      headers: { authorization: `Bearer ${p.session}` },
      payload: {
        fields: { 'full-name': 'Ada Lovelace', sig: 'Ada Lovelace' },
        signature: { type: 'TYPED', text: 'Ada Lovelace' },
      },
    });
    expect([signed.statusCode, signed.json().status]).toEqual([200, 'COMPLETE']);
    // The signature field holds the signature's mark, as when no value is given for it.
    const audit = (await pagesText((await p.get(`/documents/${signed.json().documents[0].id}`)).rawPayload)).at(-1)!;
    expect(audit.split('\n')).toEqual(expect.arrayContaining(['sig (SIGNATURE, page 1)', 'typed: Ada Lovelace']));
  });

  it('should refuse a signature over the size limit with a clear error, not a 500', async () => {
    const { token, items } = await signingRequest();
    const p = await signedIn(t.app, token);
    const big = Buffer.concat([pngBytes(), Buffer.alloc(1024 * 1024 + 10)]).toString('base64');
    const response = await t.app.inject({
      method: 'POST',
      url: `${p.base}/items/${items[0].id}/sign`,
      headers: { authorization: `Bearer ${p.session}` },
      payload: { fields: { 'full-name': 'Ana' }, signature: { type: 'DRAWN', png_base64: big } },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['body', 'signature']);
  });

  it('should answer 410 for a contract whose stored file is absent, to view or to sign, and log it', async () => {
    const lost = (await createContract(t.app, tenant.apiKey, 'Lost letter.pdf')).id;
    await t.db.transaction((tx) => tx.update(Contract, lost, { fields: FIELDS }));
    const { token, items } = await requestWithLink(t.app, tenant.apiKey, {
      items: [{ type: 'E_SIGNATURE', name: 'Lost letter', contract_id: lost }],
    });
    const [{ storage_key }] = await t.orm.em
      .fork()
      .getConnection()
      .execute('select f.storage_key from contract c join stored_file f on f.id = c.file_id where c.id = ?', [lost]);
    // As on an instance that does not share the others' files.
    rmSync(storedObjects(t).find((path) => path.endsWith(storage_key))!);
    errors.length = 0;
    const p = await signedIn(t.app, token);
    const contract = await p.get(`/items/${items[0].id}/contract`);
    expect(contract.statusCode).toBe(410);
    const signed = await t.app.inject({
      method: 'POST',
      url: `${p.base}/items/${items[0].id}/sign`,
      headers: { authorization: `Bearer ${p.session}` },
      payload: { fields: { 'full-name': 'Ana' }, signature: { type: 'TYPED', text: 'Ana' } },
    });
    expect(signed.statusCode).toBe(410);
    expect(signed.json()).toEqual({ detail: 'The file is no longer stored' });
    expect(errors.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 50, msg: 'a stored file is missing', key: storage_key }),
      expect.objectContaining({ level: 50, msg: 'a stored file is missing', key: storage_key }),
    ]);
  });
});
