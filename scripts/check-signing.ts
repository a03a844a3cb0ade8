// npm run check:signing: the signatures Gather makes, checked by poppler's pdfsig rather than by our own
// JavaScript (which `npm test` uses). Signs a sample two-page contract with a typed and with a drawn
// signature, as signContract does but without a database, then expects scripts/check-pdf-signature.sh
// to call each signed PDF valid, and invalid once one byte of it changes. Exits 1 on any surprise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { ContractField } from '../src/modules/contracts/contract.entities';
import { createLogger } from '../src/kernel/logger';
import { createSelfSignedKey } from '../src/modules/signing/signing.certificate';
import { checkSigning, signPdf, type SignInput } from '../src/modules/signing/signing.service';
import { pngBytes } from '../test/support/png';

const CHECK = join(__dirname, 'check-pdf-signature.sh');

const FIELDS: ContractField[] = [
  {
    id: 'name',
    type: 'TEXT',
    layout: {
      page: 1,
      position: { offsetX: 60, offsetY: 120, anchorPoint: 'TOP_LEFT' },
      style: { width: 220, height: 24 },
    },
  },
  {
    id: 'agree',
    type: 'CHECKBOX',
    layout: {
      page: 1,
      position: { offsetX: 60, offsetY: 160, anchorPoint: 'TOP_LEFT' },
      style: { width: 16, height: 16 },
    },
  },
  {
    id: 'date',
    type: 'DATE',
    layout: { page: 2, position: { offsetX: 60, offsetY: 100, anchorPoint: 'BOTTOM_LEFT' } },
  },
  {
    id: 'signature',
    type: 'SIGNATURE',
    layout: {
      page: 2,
      position: { offsetX: 60, offsetY: 40, anchorPoint: 'BOTTOM_RIGHT' },
      style: { width: 200, height: 50 },
    },
  },
];

async function samplePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText('Sample agreement, page 1', { x: 60, y: 780 });
  pdf.addPage([595, 842]).drawText('Sample agreement, page 2: signatures', { x: 60, y: 780 });
  return Buffer.from(await pdf.save());
}

/** The exit status of check-pdf-signature.sh on these bytes. */
function pdfsigStatus(dir: string, name: string, bytes: Buffer): number {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const run = spawnSync('bash', [CHECK, path], { stdio: ['ignore', 'inherit', 'inherit'] });
  return run.status ?? -1;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gather-check-signing-'));
  const failures: string[] = [];
  try {
    const original = await samplePdf();
    const { key } = await createSelfSignedKey('Gather Check Signing, Compañía', new Date());
    const signatures: [string, SignInput['signature']][] = [
      ['typed', { type: 'TYPED', text: 'Ana Diaz' }],
      ['drawn', { type: 'DRAWN', png_base64: pngBytes(120, 40).toString('base64') }],
    ];
    for (const [kind, signature] of signatures) {
      const input = {
        signer: {
          recipientId: 'check',
          name: 'Ana Diaz',
          email: 'ana@example.com',
          ip: '203.0.113.7',
          userAgent: 'check-signing',
        },
        values: { name: 'Ana Diaz', agree: 'true' },
        signature,
        at: new Date(),
      };
      const plan = checkSigning({ fields: FIELDS }, input);
      const record = {
        documentName: 'Sample agreement.pdf',
        contractId: 'check',
        organizationName: 'Gather Check Signing',
        signer: input.signer,
        at: input.at,
        language: 'en-US' as const,
      };
      const { pdf } = await signPdf(
        { log: createLogger('warn') },
        async () => original,
        plan,
        record,
        async () => key,
      );
      console.error(`check-signing: ${kind} signature, ${pdf.length} bytes: expecting pdfsig to call it valid`);
      if (pdfsigStatus(dir, `${kind}.pdf`, pdf) !== 0) failures.push(`the ${kind} signed PDF is not valid for pdfsig`);
      // A byte of the header's binary comment: the file still parses, the digest no longer matches.
      const changed = Buffer.from(pdf);
      changed[10] ^= 0x01;
      console.error(`check-signing: ${kind} signature with byte 10 changed: expecting pdfsig to call it invalid`);
      if (pdfsigStatus(dir, `${kind}-changed.pdf`, changed) !== 1)
        failures.push(`the ${kind} signed PDF with one byte changed is not invalid for pdfsig`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length) {
    console.error(`check-signing: FAILED\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.error('check-signing: ok (valid when signed, invalid after one byte changed; typed and drawn)');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
