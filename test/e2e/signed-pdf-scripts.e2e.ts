import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGS } from '../../src/i18n/i18n';
import { Contract, type ContractField } from '../../src/modules/contracts/contract.entities';
import type { Language } from '../../src/modules/requests/request.enums';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../support/app';
import { createContract } from '../support/files';
import { requestWithLink, signedIn } from '../support/portal';
import { ARTIFACTS } from './support/browser';

// A signed PDF in the scripts of the recipients' languages, read back by poppler: pdftotext finds the names
// and the audit page's words written (not dropped, not `?`), pdfsig calls the signature valid, and
// pdftoppm draws the pages for a person to look at (test/artifacts/signed-<language>.pdf and -<page>.png).

const FIELDS: ContractField[] = [
  {
    id: 'full-name',
    type: 'TEXT',
    layout: {
      page: 1,
      position: { offsetX: 50, offsetY: 100, anchorPoint: 'TOP_LEFT' },
      style: { width: 300, height: 24 },
    },
  },
  {
    id: 'sig',
    type: 'SIGNATURE',
    layout: {
      page: 1,
      position: { offsetX: 50, offsetY: 60, anchorPoint: 'BOTTOM_LEFT' },
      style: { width: 220, height: 48 },
    },
  },
];

/**
 * What poppler reads, without the bidi marks it puts around right-to-left lines. The page holds glyphs in
 * the order they are seen, and poppler reads two of them back in that order: Gurmukhi's sihari (ਿ, drawn
 * before its consonant), put back after it here; and Arabic's lam-alef ligature (its two letters turned with
 * the line), which reads as alef-lam, a pair Arabic also types (الزهراء): `asRead` turns each typed lam-alef.
 * Both sides in NFC: poppler gives stacked marks (shadda, kasra) in drawing order, not canonical order.
 */
const text = (file: string) =>
  execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
    .replace(/[\u200e\u200f\u202a-\u202e]/g, '')
    .replace(/\u0a3f([\u0a15-\u0a39\u0a59-\u0a5e])/g, '$1\u0a3f')
    .normalize('NFC');
const asRead = (typed: string) => typed.normalize('NFC').replace(/\u0644([\u0622\u0623\u0625\u0627])/g, '$1\u0644');

describe('signed PDFs in every script', () => {
  let t: TestApp;
  let tenant: Tenant;
  let contractId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Acme');
    contractId = (await createContract(t.app, tenant.apiKey)).id;
    await t.db.transaction((tx) => tx.update(Contract, contractId, { fields: FIELDS }));
  });
  afterAll(() => t.close());

  it.each([
    ['zh', '王小明', '李华'],
    ['ar', 'محمد', 'فاطمة الزهراء'],
    ['he', 'דוד', 'שרה כהן'],
    ['ko', '김민준', '이서연'],
    ['pa', 'ਹਰਪ੍ਰੀਤ', 'ਸਿੰਘ'],
    ['ru', 'Иван', 'Петров'],
    ['ht', 'Jean-Baptiste', 'Désir'],
  ] as [Language, string, string][])(
    'should write a %s signer, their values and the audit page in their script, with a valid signature',
    async (language, first, last) => {
      const { token, items } = await requestWithLink(t.app, tenant.apiKey, {
        name: 'Contract',
        items: [{ type: 'E_SIGNATURE', name: 'Contract', contract_id: contractId }],
        recipients: [
          { first_name: first, last_name: last, email: `${language}@example.com`, language, auth_method: 'NONE' },
        ],
      });
      const p = await signedIn(t.app, token);
      // A Chinese name typed into an Arabic recipient's field too: scripts mix on one page.
      const fullName = `${first} ${last} 王 محمد`;
      const signed = await t.app.inject({
        method: 'POST',
        url: `${p.base}/items/${items[0].id}/sign`,
        headers: { authorization: `Bearer ${p.session}` },
        payload: { fields: { 'full-name': fullName }, signature: { type: 'TYPED', text: `${first} ${last}` } },
      });
      expect(signed.statusCode).toBe(200);
      const pdf = (await p.get(`/documents/${signed.json().documents[0].id}`)).rawPayload;
      const file = join(ARTIFACTS, `signed-${language}.pdf`);
      writeFileSync(file, pdf);

      const read = text(file);
      const pdfText = CATALOGS[language].pdf;
      for (const expected of [
        first,
        last,
        pdfText.title,
        pdfText.signer,
        pdfText.fields,
        pdfText.signature,
        '王',
        'محمد',
      ])
        expect({ expected, found: read.includes(asRead(expected)) }).toEqual({ expected, found: true });
      expect(execFileSync('pdffonts', [file], { encoding: 'utf8' })).not.toMatch(/may be invalid/);

      const sig = execFileSync('pdfsig', [file], { encoding: 'utf8' });
      expect(sig).toContain('Signature Validation: Signature is Valid.');
      execFileSync('pdftoppm', ['-r', '60', '-png', file, join(ARTIFACTS, `signed-${language}`)]);
    },
  );
});
