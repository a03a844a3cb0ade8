import { createHash } from 'node:crypto';
import { AppError } from '../../kernel/errors/app-error';
import type { Ask } from '../../kernel/workers/pool';
import { readContractPdf } from '../contracts/contract.layout';
import { checkPdf } from '../contracts/contract.pdf-check';
import { openKey, type SigningKey } from './signing.key';
import { t } from '../../i18n/i18n';
import { directionOf } from '../../i18n/format';
import { typesetter } from './signing.fonts';
import { appendAuditPages, auditTexts, signDocument, stampFields, type Stamp, type StampValue } from './signing.pdf';
import type { SignedContract, SigningPlan, SigningRecord } from './signing.service';

// The task of the PDF worker that signs (signing.service.ts runs it): the contract's PDF, checked against
// the limits, becomes the signed PDF.

export function refuse(message: string, field: string[] = []): AppError {
  return AppError.validation([{ field, message, code: 'INVALID' }]);
}

/** "Ana María Diaz" → "AMD": the initials a typed signature stamps in INITIALS fields. */
const initialsOf = (text: string) =>
  text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => [...word][0]!.toUpperCase())
    .join('');

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The signed PDF of a checked plan: stamps, audit pages, signature. The key is asked of the main thread once
 * the PDF is known to be signable, so a refused PDF makes no certificate.
 */
export async function sign(
  { original, plan, record }: { original: Uint8Array; plan: SigningPlan; record: SigningRecord },
  ask: Ask,
): Promise<Omit<SignedContract, 'name'>> {
  await checkPdf(original, []);
  const pdf = await readContractPdf(original);
  if (!pdf) throw refuse('The contract could not be read as a PDF, so it cannot be signed');
  // pdf-lib would write an encrypted document's strings and streams back unreadable.
  if (pdf.isEncrypted) throw refuse('The contract is an encrypted PDF, which cannot be signed');

  let mark: StampValue;
  if ('png' in plan.signature) {
    try {
      mark = { kind: 'IMAGE', image: await pdf.embedPng(plan.signature.png) };
    } catch {
      throw refuse('The drawn signature is not a readable PNG image', ['signature']);
    }
  } else {
    mark = { kind: 'SCRIPT', text: plan.signature.typed };
  }
  const initials: StampValue = mark.kind === 'SCRIPT' ? { kind: 'SCRIPT', text: initialsOf(mark.text) } : mark;
  const { language } = record;
  const stamps: Stamp[] = plan.fields.map(({ key, field, value, shown }) => {
    const stamped = value === 'SIGNATURE' ? mark : value === 'INITIALS' ? initials : value;
    const described =
      stamped.kind === 'SCRIPT'
        ? t(language, 'pdf.typed', { text: stamped.text })
        : stamped.kind === 'IMAGE'
          ? t(language, 'pdf.drawn')
          : stamped.kind === 'MARK'
            ? t(language, stamped.checked ? 'pdf.checked' : 'pdf.notChecked')
            : shown;
    return { key, type: field.type, layout: field.layout, value: stamped, shown: described };
  });

  // Buffers cross from the main thread as plain Uint8Arrays.
  const given = (await ask('signingKey')) as SigningKey;
  const key = openKey({ p12: Buffer.from(given.p12), passphrase: given.passphrase });
  const fonts = await typesetter(pdf, directionOf(language) === 'rtl');
  const written = (stamp: StampValue) =>
    stamp.kind === 'TEXT'
      ? [{ text: stamp.text }]
      : stamp.kind === 'SCRIPT'
        ? [{ text: stamp.text, font: 'script' as const }]
        : [];
  await fonts.prepare(stamps.flatMap((stamp) => written(stamp.value)));
  const unplaced = stampFields(pdf, fonts, stamps, language);
  const stampedSha256 = sha256(await pdf.save({ useObjectStreams: false, objectsPerTick: Infinity }));
  const originalSha256 = sha256(original);
  const { signer, at } = record;
  const audit = {
    documentName: record.documentName,
    contractId: record.contractId,
    organizationName: record.organizationName,
    signerName: signer.name,
    signerEmail: signer.email,
    at,
    ip: signer.ip,
    userAgent: signer.userAgent,
    originalSha256,
    stampedSha256,
    certificate: key.certificate,
    stamps,
    unplaced,
    signature: mark,
    language,
  };
  await fonts.prepare([...auditTexts(audit), ...written(mark)]);
  const lastPage = appendAuditPages(pdf, fonts, audit);
  const signed = await signDocument(pdf, lastPage, key, {
    name: signer.name,
    email: signer.email,
    reason: `Signed by ${signer.name} through ${record.organizationName}`,
    location: signer.ip,
    at,
  });
  return { pdf: signed, originalSha256, stampedSha256, signedSha256: sha256(signed) };
}
