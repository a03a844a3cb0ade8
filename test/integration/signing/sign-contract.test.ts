import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import type { ContractField } from '../../../src/modules/contracts/contract.entities';
import { Contract } from '../../../src/modules/contracts/contract.entities';
import type { Viewer } from '../../../src/modules/identity/viewer';
import { ConfigError } from '../../../src/config/config';
import { checkSigningSettings, createSelfSignedKey } from '../../../src/modules/signing/signing.certificate';
import { MAX_CONTRACT_OBJECT_STREAM_BYTES } from '../../../src/modules/contracts/contract.limits';
import { MAX_SIGNATURE_PNG_BYTES } from '../../../src/modules/signing/signing.limits';
import {
  signContract,
  signerFields,
  type SignInput,
  type SigningCtx,
} from '../../../src/modules/signing/signing.service';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../../support/app';
import { UNKNOWN_ID } from '../../support/fixtures';
import { replaceContractBytes } from '../../support/documents';
import { docxBytes, upload } from '../../support/files';
import { objectStreamBomb } from '../../support/pdf-bombs';
import { pngBytes } from '../../support/png';
import { pageImageCount, pagesText, verifyPdfSignature } from '../../support/pdf-signature';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A two-page contract whose pages say which they are. */
async function contractPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText('Terms, page one', { x: 50, y: 780 });
  pdf.addPage([595, 842]).drawText('Signatures, page two', { x: 50, y: 780 });
  return Buffer.from(await pdf.save());
}

const at = (page: number, offsetX: number, offsetY: number, anchorPoint: 'TOP_LEFT' | 'BOTTOM_RIGHT' = 'TOP_LEFT') => ({
  page,
  position: { offsetX, offsetY, anchorPoint },
  style: { width: 200, height: 30 },
});

const ANA = { email: 'ana@example.com', firstName: 'Ana', lastName: 'Diaz', phone: null };
const FIELDS: ContractField[] = [
  { id: 'full-name', type: 'TEXT', assignedTo: ANA, layout: at(2, 50, 100) },
  { id: 'agree', type: 'CHECKBOX', layout: at(1, 50, 200) },
  { id: 'signed-on', type: 'DATE', layout: at(2, 50, 150) },
  {
    id: 'ana-sig',
    type: 'SIGNATURE',
    assignedTo: { ...ANA, email: 'ANA@Example.com' },
    layout: at(2, 40, 40, 'BOTTOM_RIGHT'),
  },
  { id: 'ana-initials', type: 'INITIALS', assignedTo: ANA, layout: at(1, 40, 40, 'BOTTOM_RIGHT') },
  {
    id: 'bob-sig',
    type: 'SIGNATURE',
    assignedTo: { email: 'bob@example.com' },
    layout: at(2, 300, 40, 'BOTTOM_RIGHT'),
  },
  { type: 'CHECKBOX', placeholder: 'No place on the page' },
  { id: 'far-away', type: 'TEXT', layout: at(7, 10, 10) },
  { id: 'phone-sig', type: 'SIGNATURE', assignedTo: { phone: '+1 (555) 0100-2' } },
];

describe('signContract', () => {
  let t: TestApp;
  let tenant: Tenant;
  let ctx: SigningCtx;
  let original: Buffer;
  let contractId: string;

  const ctxFor = (app: TestApp, organizationId: string): SigningCtx =>
    app.app.contexts.forViewer({ organizationId } as Viewer, { log: app.app.log, requestId: 'signing-test' });

  async function uploadContract(
    app: TestApp,
    apiKey: string,
    bytes: Buffer,
    fields: ContractField[],
    name = 'Engagement letter.pdf',
  ): Promise<string> {
    const response = await upload(app.app, apiKey, '/contracts', bytes, { filename: name });
    if (response.statusCode !== 200)
      throw new Error(`POST /contracts answered ${response.statusCode}: ${response.body}`);
    const id = response.json().id as string;
    await app.db.transaction((tx) => tx.update(Contract, id, { fields }));
    return id;
  }

  const input = (overrides: Partial<SignInput> = {}): SignInput => ({
    organization: { id: tenant.organizationId, name: 'Acme Compañía' },
    contractId,
    signer: {
      recipientId: UNKNOWN_ID,
      name: 'Ana Diaz',
      email: 'ana@example.com',
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (Test) Signing/1.0',
    },
    values: { 'full-name': 'Ana María Diaz', agree: 'true', 'field-7': 'false', 'far-away': 'Somewhere' },
    signature: { type: 'TYPED', text: 'Ana Diaz' },
    at: new Date('2026-11-24T10:20:30.000Z'),
    language: 'en-US',
    ...overrides,
  });

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Acme Compañía');
    ctx = ctxFor(t, tenant.organizationId);
    original = await contractPdf();
    contractId = await uploadContract(t, tenant.apiKey, original, FIELDS);
  });
  afterAll(() => t.close());

  it('should give each signer the fields assigned to them (email in any case) and the unassigned ones', () => {
    const keys = (email: string | null, phone?: string) =>
      signerFields({ fields: FIELDS }, { email, phone }).map((f) => f.key);
    expect(keys('Ana@Example.COM')).toEqual([
      'full-name',
      'agree',
      'signed-on',
      'ana-sig',
      'ana-initials',
      'field-7',
      'far-away',
    ]);
    expect(keys('bob@example.com')).toEqual(['agree', 'signed-on', 'bob-sig', 'field-7', 'far-away']);
    expect(keys(null, '+1 555 0100')).toEqual(['agree', 'signed-on', 'field-7', 'far-away']);
    expect(keys(null, '+1 555 01002')).toEqual(['agree', 'signed-on', 'field-7', 'far-away', 'phone-sig']);
  });

  it('should read only the values given, whatever the field ids are called', async () => {
    const id = await uploadContract(t, tenant.apiKey, original, [
      { id: 'constructor', type: 'CHECKBOX', layout: at(1, 10, 10) },
      { id: 'toString', type: 'DATE', layout: at(1, 10, 50) },
    ]);
    const signed = await signContract(ctx, input({ contractId: id, values: {} }));
    expect((await pagesText(signed.pdf))[0].split('\n')).toEqual(['Terms, page one', '2026-11-24']);
  });

  it('should stamp the values on their pages, append the audit page and sign the whole file', async () => {
    const signed = await signContract(ctx, input());
    expect(signed.originalSha256).toBe(sha256(original));
    expect(signed.signedSha256).toBe(sha256(signed.pdf));
    expect(signed.name).toBe('Engagement letter.signed.pdf');

    expect(verifyPdfSignature(signed.pdf)).toMatchObject({
      valid: true,
      signer: 'CN=Acme Compañía, O=Acme Compañía',
      coversWholeFile: true,
    });

    const [one, two, audit, ...more] = await pagesText(signed.pdf);
    expect(more).toEqual([]);
    expect(one.split('\n')).toEqual(['Terms, page one', 'X', 'AD']);
    expect(two.split('\n')).toEqual(['Signatures, page two', 'Ana Mar\u00eda Diaz', '2026-11-24', 'Ana Diaz']);
    for (const line of [
      'Electronic signature record',
      'Engagement letter.pdf',
      contractId,
      'Acme Compa\u00f1\u00eda',
      'Ana Diaz <ana@example.com>',
      '2026-11-24T10:20:30.000Z',
      '203.0.113.7',
      'Mozilla/5.0 (Test) Signing/1.0',
      signed.originalSha256,
      signed.stampedSha256,
      'full-name (TEXT, page 2)',
      'Ana Mar\u00eda Diaz',
      'agree (CHECKBOX, page 1)',
      'signed-on (DATE, page 2)',
      'ana-sig (SIGNATURE, page 2)',
      'typed: Ana Diaz',
      'ana-initials (INITIALS, page 1)',
      'typed: AD',
      'field-7 (CHECKBOX, not placed on the document: no layout)',
      'not checked',
      'far-away (TEXT, not placed on the document: page 7 is not in the document)',
    ]) {
      expect(audit.split('\n')).toContain(line);
    }
    expect(audit).not.toContain('bob-sig');
  });

  it('should fail verification once one byte of the signed ranges changes', async () => {
    const { pdf } = await signContract(ctx, input());
    // In the header's binary comment: the file still parses, its digest differs.
    const early = Buffer.from(pdf);
    early[10] ^= 0x01;
    expect(verifyPdfSignature(early)).toMatchObject({
      valid: false,
      problem: 'the messageDigest is not the SHA-256 of the signed byte ranges',
    });
    // The last byte of the file, in the second range.
    const late = Buffer.from(pdf);
    late[late.length - 2] ^= 0x01;
    expect(verifyPdfSignature(late).valid).toBe(false);
    expect(verifyPdfSignature(pdf).valid).toBe(true);
  });

  it('should embed a drawn signature as an image in SIGNATURE and INITIALS fields and on the audit page', async () => {
    const drawn = await signContract(
      ctx,
      input({ signature: { type: 'DRAWN', png_base64: pngBytes(60, 20).toString('base64') } }),
    );
    expect(verifyPdfSignature(drawn.pdf).valid).toBe(true);
    const doc = await PDFDocument.load(drawn.pdf);
    expect(doc.getPages().map(pageImageCount)).toEqual([1, 1, 1]);
    const [, , audit] = await pagesText(drawn.pdf);
    expect(audit).toContain('drawn (the image below)');
    // A data: URL is taken too (canvas.toDataURL gives one).
    const dataUrl = await signContract(
      ctx,
      input({ signature: { type: 'DRAWN', png_base64: `data:image/png;base64,${pngBytes().toString('base64')}` } }),
    );
    expect(verifyPdfSignature(dataUrl.pdf).valid).toBe(true);
  });

  it('should date a DATE field on the signing day unless given one', async () => {
    const given = await signContract(ctx, input({ values: { ...input().values, 'signed-on': '2027-01-31' } }));
    expect((await pagesText(given.pdf))[1]).toContain('2027-01-31');
  });

  describe('refusals (422, nothing produced)', () => {
    const refusal = async (overrides: Partial<SignInput>) => {
      const error = await signContract(ctx, input(overrides)).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({ code: 'VALIDATION' });
      return (error as { userErrors: unknown[] }).userErrors;
    };

    it('should name field ids that are not the signer fields', async () => {
      expect(await refusal({ values: { ...input().values, 'bob-sig': 'x', nope: 'y' } })).toEqual([
        {
          field: ['fields', 'bob-sig'],
          message: 'Names no field of this contract that this signer fills in',
          code: 'NOT_FOUND',
        },
        {
          field: ['fields', 'nope'],
          message: 'Names no field of this contract that this signer fills in',
          code: 'NOT_FOUND',
        },
      ]);
    });

    it('should refuse values of the wrong shape, and a missing TEXT value', async () => {
      const values = { agree: 'yes', 'signed-on': '2026-02-30', 'ana-sig': 'Ana', 'far-away': 'x', 'field-7': '1' };
      expect(await refusal({ values })).toEqual([
        { field: ['fields', 'full-name'], message: 'Field required', code: 'REQUIRED' },
        { field: ['fields', 'agree'], message: 'A CHECKBOX field\'s value is "true" or "false"', code: 'INVALID' },
        { field: ['fields', 'signed-on'], message: 'A DATE field\'s value is a day, "YYYY-MM-DD"', code: 'INVALID' },
        { field: ['fields', 'field-7'], message: 'A CHECKBOX field\'s value is "true" or "false"', code: 'INVALID' },
      ]);
      expect(await refusal({ values: { ...input().values, 'full-name': '   ' } })).toEqual([
        {
          field: ['fields', 'full-name'],
          message: 'Text should have at least 1 non-blank character',
          code: 'TOO_SHORT',
        },
      ]);
      expect(await refusal({ values: { ...input().values, agree: true as unknown as string } })).toEqual([
        { field: ['fields', 'agree'], message: 'Input should be a string', code: 'INVALID' },
      ]);
    });

    it('should refuse a drawn signature that is not a PNG, is over 1 MiB or 4 million pixels, is not base64 or does not decode', async () => {
      const drawn = (png_base64: string) => refusal({ signature: { type: 'DRAWN', png_base64 } });
      const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
      expect(await drawn(jpeg.toString('base64'))).toEqual([
        { field: ['signature'], message: 'The drawn signature is not a PNG image', code: 'INVALID' },
      ]);
      const big = Buffer.concat([pngBytes(), Buffer.alloc(MAX_SIGNATURE_PNG_BYTES)]);
      expect(await drawn(big.toString('base64'))).toEqual([
        { field: ['signature'], message: 'The drawn signature is over 1 MiB', code: 'TOO_LONG' },
      ]);
      expect(await drawn('not base64!')).toEqual([
        { field: ['signature'], message: 'png_base64 is not base64', code: 'INVALID' },
      ]);
      expect(await drawn('')).toEqual([
        { field: ['signature'], message: 'A drawn signature needs png_base64, a PNG image in base64', code: 'INVALID' },
      ]);
      // 5,000 by 1,000 of one colour compresses to a few kilobytes, and would decode to 20 MB.
      expect(await drawn(pngBytes(5000, 1000).toString('base64'))).toEqual([
        {
          field: ['signature'],
          message: 'The drawn signature is 5000 by 1000 pixels; at most 4,000,000 pixels',
          code: 'TOO_LONG',
        },
      ]);
      expect(await drawn(pngBytes().subarray(0, 12).toString('base64'))).toEqual([
        { field: ['signature'], message: 'The drawn signature is not a readable PNG image', code: 'INVALID' },
      ]);
      const truncated = pngBytes().subarray(0, 40);
      expect(await drawn(truncated.toString('base64'))).toEqual([
        { field: ['signature'], message: 'The drawn signature is not a readable PNG image', code: 'INVALID' },
      ]);
    });

    it('should refuse an empty typed signature and an unknown signature type', async () => {
      expect(await refusal({ signature: { type: 'TYPED', text: ' ' } })).toEqual([
        { field: ['signature'], message: 'Text should have at least 1 non-blank character', code: 'TOO_SHORT' },
      ]);
      expect(await refusal({ signature: { type: 'STAMPED' } as never })).toEqual([
        {
          field: ['signature'],
          message: 'A signature is {"type": "TYPED", "text"} or {"type": "DRAWN", "png_base64"}',
          code: 'INVALID',
        },
      ]);
    });

    it("should refuse a DOCX contract, an unreadable or encrypted PDF, and not find another organization's contract", async () => {
      const docx = await uploadContract(t, tenant.apiKey, await docxBytes(), [], 'terms.docx');
      expect(await refusal({ contractId: docx, values: {} })).toEqual([
        {
          field: [],
          message:
            'Only PDF contracts can be signed; this one is application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          code: 'INVALID',
        },
      ]);
      const broken = await uploadContract(
        t,
        tenant.apiKey,
        Buffer.from('%PDF-1.7\nthis is not really a PDF\n'),
        [],
        'broken.pdf',
      );
      expect(await refusal({ contractId: broken, values: {} })).toEqual([
        { field: [], message: 'The contract could not be read as a PDF, so it cannot be signed', code: 'INVALID' },
      ]);
      const locked = await PDFDocument.create();
      locked.addPage();
      locked.context.trailerInfo.Encrypt = locked.context.obj({ Filter: 'Standard', V: 1, R: 2 });
      const encrypted = await uploadContract(t, tenant.apiKey, Buffer.from(await locked.save()), [], 'locked.pdf');
      expect(await refusal({ contractId: encrypted, values: {} })).toEqual([
        { field: [], message: 'The contract is an encrypted PDF, which cannot be signed', code: 'INVALID' },
      ]);
      const other = await createTenant(t.db);
      await expect(
        signContract(ctx, input({ organization: { id: other.organizationId, name: 'Other' } })),
      ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Contract not found' });
      await expect(signContract(ctx, input({ contractId: 'not-a-uuid' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  it('should refuse a contract whose PDF decodes past the limits, and make no certificate for it', async () => {
    const fresh = await createTenant(t.db, 'Bomb Signing Co');
    const id = await uploadContract(t, fresh.apiKey, original, FIELDS);
    await replaceContractBytes(t, id, await objectStreamBomb(2 * MAX_CONTRACT_OBJECT_STREAM_BYTES));
    await expect(
      signContract(
        ctxFor(t, fresh.organizationId),
        input({ organization: { id: fresh.organizationId, name: 'Bomb Signing Co' }, contractId: id }),
      ),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
      userErrors: [
        {
          field: [],
          message: "The PDF's object and cross-reference streams decode to more than 32 MiB",
          code: 'TOO_LONG',
        },
      ],
    });
    const [{ n }] = await t.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from organization_certificate where organization_id = ?', [
        fresh.organizationId,
      ]);
    expect(n).toBe(0);
  });

  describe('the organization certificate', () => {
    const certificates = (organizationId: string) =>
      t.orm.em
        .fork()
        .getConnection()
        .execute<{ certificate_pem: string }[]>(
          'select certificate_pem from organization_certificate where organization_id = ?',
          [organizationId],
        );

    it('should be made once under concurrent first signatures, sealed, and reused', async () => {
      const fresh = await createTenant(t.db, 'Concurrent Signing Co');
      const freshContract = await uploadContract(t, fresh.apiKey, original, FIELDS);
      const freshCtx = () => ctxFor(t, fresh.organizationId);
      const sign = () =>
        signContract(
          freshCtx(),
          input({
            organization: { id: fresh.organizationId, name: 'Concurrent Signing Co' },
            contractId: freshContract,
          }),
        );
      const signed = await Promise.all([sign(), sign(), sign(), sign()]);
      const rows = await certificates(fresh.organizationId);
      expect(rows).toHaveLength(1);
      const [{ sealed_p12 }] = await t.orm.em
        .fork()
        .getConnection()
        .execute<{ sealed_p12: string }[]>(
          'select sealed_p12 from organization_certificate where organization_id = ?',
          [fresh.organizationId],
        );
      // No key material in the clear: neither the bytes nor the base64 of the (public) certificate the
      // PKCS#12 holds appear in the sealed value (a fixed prefix such as "MII" may, by chance).
      const der = Buffer.from(rows[0].certificate_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
      expect(Buffer.from(sealed_p12, 'base64').includes(der.subarray(0, 64))).toBe(false);
      expect(sealed_p12).not.toContain(der.subarray(0, 48).toString('base64'));
      const later = await sign();
      const fingerprints = new Set([...signed, later].map((s) => verifyPdfSignature(s.pdf).certificateSha256));
      expect(fingerprints).toEqual(new Set([certificateFingerprint(rows[0].certificate_pem)]));
      expect(verifyPdfSignature(later.pdf)).toMatchObject({
        valid: true,
        signer: 'CN=Concurrent Signing Co, O=Concurrent Signing Co',
      });
    });

    it('should sign with the configured PKCS#12 instead, for every organization', async () => {
      const { key } = await createSelfSignedKey('Configured Signer Ltd', new Date());
      const configured = await createTestApp({ signing: { p12: { bytes: key.p12, passphrase: key.passphrase } } });
      try {
        const owner = await createTenant(configured.db, 'Uses The Configured One');
        const id = await uploadContract(configured, owner.apiKey, original, FIELDS);
        const signed = await signContract(
          ctxFor(configured, owner.organizationId),
          input({ organization: { id: owner.organizationId, name: 'Uses The Configured One' }, contractId: id }),
        );
        expect(verifyPdfSignature(signed.pdf)).toMatchObject({
          valid: true,
          signer: 'CN=Configured Signer Ltd, O=Configured Signer Ltd',
        });
        const [{ n }] = await configured.orm.em
          .fork()
          .getConnection()
          .execute('select count(*)::int as n from organization_certificate');
        expect(n).toBe(0);
      } finally {
        await configured.close();
      }
    });

    it('should stop the start on a configured PKCS#12 that does not open', async () => {
      const { key } = await createSelfSignedKey('Configured Signer Ltd', new Date());
      expect(() => checkSigningSettings({ p12: { bytes: key.p12, passphrase: key.passphrase } })).not.toThrow();
      expect(() => checkSigningSettings({})).not.toThrow();
      for (const p12 of [
        { bytes: key.p12, passphrase: 'wrong' },
        { bytes: Buffer.from('not a PKCS#12'), passphrase: '' },
      ]) {
        expect(() => checkSigningSettings({ p12 })).toThrow(
          new ConfigError([
            'The signing PKCS#12 (SIGNING_P12_PATH) cannot be opened: not a PKCS#12 file, or a wrong SIGNING_P12_PASSPHRASE',
          ]),
        );
      }
    });
  });
});

function certificateFingerprint(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return createHash('sha256').update(der).digest('hex');
}
