import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdf from '@signpdf/signpdf';
import { DEFAULT_SIGNATURE_LENGTH } from '@signpdf/utils';
import { PDFDocument, rgb, type PDFImage, type PDFPage } from 'pdf-lib';
import { t } from '../../i18n/i18n';
import type { ContractLayout } from '../contracts/contract.entities';
import { boxOnPage, printable, type Box } from '../contracts/contract.layout';
import type { Language } from '../requests/request.enums';
import type { FontKey, Typesetter } from './signing.fonts';
import type { CertificateSummary, OpenedKey } from './signing.key';

// The three steps that turn a contract into a signed PDF: stamp the values, append the audit pages,
// sign. They work on a pdf-lib document; signing.service.ts checks the input and reads the contract.

/** What one field shows once stamped. */
export type StampValue =
  | { kind: 'TEXT'; text: string }
  | { kind: 'MARK'; checked: boolean }
  /** A typed signature or initials, drawn in the signature font. */
  | { kind: 'SCRIPT'; text: string }
  | { kind: 'IMAGE'; image: PDFImage };

export type Stamp = {
  key: string;
  type: string;
  layout: ContractLayout | null | undefined;
  value: StampValue;
  shown: string;
};

const INK = rgb(0.05, 0.1, 0.35);
const MUTED = rgb(0.35, 0.35, 0.35);
const MIN_TEXT_SIZE = 6;

/** Control characters and the like are not drawn: each becomes a space. */
const drawable = (text: string) => text.replace(/[\p{Cc}\p{Cf}]/gu, ' ');

/** The largest size (at most `max`) at which `text` fits `width`, not below the smallest legible one. */
function fittingSize(fonts: Typesetter, font: FontKey, text: string, width: number, max: number): number {
  const atOne = fonts.width(text, font, 1);
  return Math.max(MIN_TEXT_SIZE, Math.min(max, atOne > 0 ? width / atOne : max));
}

function drawValue(page: PDFPage, fonts: Typesetter, box: Box, value: StampValue): void {
  const pad = Math.min(2, box.width / 10, box.height / 10);
  const inner = { x: box.x + pad, y: box.y + pad, width: box.width - 2 * pad, height: box.height - 2 * pad };
  switch (value.kind) {
    case 'TEXT':
    case 'SCRIPT': {
      const font = value.kind === 'TEXT' ? 'regular' : 'script';
      const text = drawable(value.text);
      const size = fittingSize(
        fonts,
        font,
        text,
        inner.width,
        Math.min(value.kind === 'TEXT' ? 11 : 28, inner.height * 0.8),
      );
      // A right-to-left value starts at the box's right edge.
      const x = fonts.rightToLeft ? Math.max(inner.x, inner.x + inner.width - fonts.width(text, font, size)) : inner.x;
      fonts.draw(page, text, {
        x,
        y: inner.y + Math.max(0, (inner.height - size) / 2) + size * 0.2,
        size,
        font,
        color: INK,
      });
      return;
    }
    case 'MARK': {
      if (!value.checked) return;
      const size = Math.min(inner.width, inner.height);
      fonts.draw(page, 'X', {
        x: inner.x + (inner.width - fonts.width('X', 'bold', size)) / 2,
        y: inner.y + (inner.height - size * 0.72) / 2,
        size,
        font: 'bold',
        color: INK,
      });
      return;
    }
    case 'IMAGE': {
      const scale = Math.min(inner.width / value.image.width, inner.height / value.image.height);
      const width = value.image.width * scale;
      const height = value.image.height * scale;
      page.drawImage(value.image, {
        x: inner.x + (inner.width - width) / 2,
        y: inner.y + (inner.height - height) / 2,
        width,
        height,
      });
      return;
    }
  }
}

/**
 * Draws each value where its layout places it (page 1 when the layout names none, as the preview
 * does). Returns why the others are not on the document, by field key, for the audit page.
 */
export function stampFields(
  pdf: PDFDocument,
  fonts: Typesetter,
  stamps: Stamp[],
  language: Language,
): Map<string, string> {
  const pages = pdf.getPages();
  const unplaced = new Map<string, string>();
  for (const stamp of stamps) {
    if (!stamp.layout) {
      unplaced.set(stamp.key, t(language, 'pdf.noLayout'));
      continue;
    }
    const pageNumber = stamp.layout.page ?? 1;
    const page = pages[pageNumber - 1];
    if (!page) {
      unplaced.set(stamp.key, t(language, 'pdf.missingPage', { page: pageNumber }));
      continue;
    }
    drawValue(page, fonts, boxOnPage(page, stamp.layout), stamp.value);
  }
  return unplaced;
}

export type AuditRecord = {
  documentName: string;
  contractId: string;
  organizationName: string;
  signerName: string;
  signerEmail: string | null;
  at: Date;
  ip: string;
  userAgent: string;
  originalSha256: string;
  stampedSha256: string;
  certificate: CertificateSummary;
  stamps: Stamp[];
  unplaced: Map<string, string>;
  signature: StampValue;
  /** The signer's language: the record's labels are in it. */
  language: Language;
};

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 56;

/** Writes lines top to bottom, wrapping them, onto as many appended pages as they need. */
class PageWriter {
  private page!: PDFPage;
  private y = 0;
  readonly pages: PDFPage[] = [];

  constructor(
    private readonly pdf: PDFDocument,
    private readonly fonts: Typesetter,
  ) {
    this.newPage();
  }

  private newPage(): void {
    this.page = this.pdf.addPage([A4.width, A4.height]);
    this.pages.push(this.page);
    this.y = A4.height - MARGIN;
  }

  private room(height: number): void {
    if (this.y - height < MARGIN) this.newPage();
  }

  /** `text` broken into lines no wider than `width`; a word longer than a line (or a run of CJK) is cut. */
  private wrap(text: string, font: FontKey, size: number, width: number): string[] {
    const fits = (line: string) => this.fonts.width(line, font, size) <= width;
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      let line = '';
      for (const word of drawable(paragraph).split(' ')) {
        let candidate = line ? `${line} ${word}` : word;
        while (!fits(candidate)) {
          if (line) {
            lines.push(line);
            line = '';
            candidate = word;
            continue;
          }
          const chars = [...candidate];
          let cut = chars.length - 1;
          while (cut > 1 && !fits(chars.slice(0, cut).join(''))) cut--;
          lines.push(chars.slice(0, cut).join(''));
          candidate = chars.slice(cut).join('');
        }
        line = candidate;
      }
      lines.push(line);
    }
    return lines;
  }

  text(
    text: string,
    options: { font?: FontKey; size?: number; indent?: number; gap?: number; colour?: ReturnType<typeof rgb> } = {},
  ): void {
    const font = options.font ?? 'regular';
    const size = options.size ?? 10;
    const indent = options.indent ?? 0;
    const width = A4.width - 2 * MARGIN - indent;
    const leading = size * 1.35;
    this.y -= options.gap ?? 0;
    for (const line of this.wrap(text, font, size, width)) {
      this.room(leading);
      this.y -= leading;
      // A right-to-left record is set against the right margin, its indents on that side.
      const x = this.fonts.rightToLeft
        ? A4.width - MARGIN - indent - this.fonts.width(line, font, size)
        : MARGIN + indent;
      this.fonts.draw(this.page, line, {
        x,
        y: this.y + size * 0.25,
        size,
        font,
        color: options.colour ?? rgb(0, 0, 0),
      });
    }
  }

  /** The signature itself, as it is stamped. */
  signature(value: StampValue): void {
    const height = 48;
    this.room(height + 8);
    this.y -= height + 4;
    const x = this.fonts.rightToLeft ? A4.width - MARGIN - 232 : MARGIN + 12;
    drawValue(this.page, this.fonts, { x, y: this.y, width: 220, height }, value);
    this.page.drawLine({
      start: { x, y: this.y },
      end: { x: x + 220, y: this.y },
      thickness: 0.5,
      color: MUTED,
    });
  }
}

/** Appends the audit pages: who signed what, when, from where, and the document's hashes. Returns the last. */
/** The audit pages' lines, in the signer's language: what `appendAuditPages` writes, and what fonts it needs. */
function auditLines(
  record: AuditRecord,
): { text: string; font: FontKey; kind: 'title' | 'note' | 'label' | 'value' | 'heading' }[] {
  const say = (key: Parameters<typeof t>[1], values?: Record<string, string | number>) =>
    t(record.language, key, values);
  const entry = (label: string, value: string, font: FontKey = 'regular') => [
    { text: label, font: 'bold' as const, kind: 'label' as const },
    { text: value, font, kind: 'value' as const },
  ];
  return [
    { text: say('pdf.title'), font: 'bold', kind: 'title' },
    { text: say('pdf.appended', { document: record.documentName }), font: 'regular', kind: 'note' },
    ...entry(say('pdf.document'), record.documentName),
    ...entry(say('pdf.contractId'), record.contractId, 'mono'),
    ...entry(say('pdf.organization'), record.organizationName),
    ...entry(
      say('pdf.signer'),
      record.signerEmail ? `${record.signerName} <${record.signerEmail}>` : record.signerName,
    ),
    ...entry(say('pdf.signedAt'), record.at.toISOString(), 'mono'),
    ...entry(say('pdf.ipAddress'), record.ip, 'mono'),
    ...entry(say('pdf.userAgent'), record.userAgent || say('pdf.none')),
    ...entry(say('pdf.originalHash'), record.originalSha256, 'mono'),
    ...entry(say('pdf.stampedHash'), record.stampedSha256, 'mono'),
    ...entry(say('pdf.digitalSignature'), say('pdf.digitalSignatureValue', { subject: record.certificate.subject })),
    ...entry(say('pdf.fingerprint'), record.certificate.sha256, 'mono'),
    { text: say('pdf.fields'), font: 'bold', kind: 'heading' },
    ...(record.stamps.length === 0
      ? [{ text: say('pdf.noFields'), font: 'regular' as const, kind: 'note' as const }]
      : []),
    ...record.stamps.flatMap((stamp) => {
      const where = record.unplaced.get(stamp.key);
      const field = { field: stamp.key, type: stamp.type };
      return entry(
        where
          ? say('pdf.fieldUnplaced', { ...field, reason: where })
          : say('pdf.fieldPlaced', { ...field, page: stamp.layout?.page ?? 1 }),
        stamp.shown,
      );
    }),
    { text: say('pdf.signature'), font: 'bold', kind: 'heading' },
  ];
}

/** Everything the audit pages write, for the typesetter to embed the fonts it needs first. */
export const auditTexts = (record: AuditRecord) => auditLines(record).map(({ text, font }) => ({ text, font }));

/** Appends the audit pages: who signed what, when, from where, and the document's hashes. Returns the last. */
export function appendAuditPages(pdf: PDFDocument, fonts: Typesetter, record: AuditRecord): PDFPage {
  const out = new PageWriter(pdf, fonts);
  let first = true;
  for (const line of auditLines(record)) {
    if (line.kind === 'title') out.text(line.text, { font: 'bold', size: 16 });
    else if (line.kind === 'note') out.text(line.text, { size: 9, gap: 4, colour: MUTED });
    else if (line.kind === 'label') out.text(line.text, { font: 'bold', size: 9, gap: 4, colour: MUTED });
    else if (line.kind === 'value')
      out.text(line.text, { font: line.font, size: line.font === 'mono' ? 9 : 10, indent: 12 });
    else {
      // The fields' heading, then (after them) the signature's heading and the signature itself.
      out.text(line.text, { font: 'bold', size: 12, gap: 12 });
      if (!first) out.signature(record.signature);
      first = false;
    }
  }
  return out.pages.at(-1)!;
}

/** A literal string for a PDF dictionary: WinAnsi, with the characters PDF strings must escape escaped. */
const pdfLiteral = (text: string) => printable(text).replace(/[\\()]/g, '\\$&');

/**
 * Signs the document with a PKCS#7 detached signature (adbe.pkcs7.detached) over everything but the
 * signature's own /Contents, and returns the signed bytes.
 */
export async function signDocument(
  pdf: PDFDocument,
  page: PDFPage,
  key: OpenedKey,
  info: { name: string; email: string | null; reason: string; location: string; at: Date },
): Promise<Buffer> {
  pdflibAddPlaceholder({
    pdfPage: page,
    reason: pdfLiteral(info.reason),
    contactInfo: pdfLiteral(info.email ?? ''),
    name: pdfLiteral(info.name),
    location: pdfLiteral(info.location),
    signingTime: info.at,
    // The PKCS#7 carries every certificate of the PKCS#12: a configured one may bring a chain.
    signatureLength: DEFAULT_SIGNATURE_LENGTH + key.chainBytes,
    appName: 'Gather',
  });
  // The placeholder must stay findable in the bytes: no object streams.
  const prepared = Buffer.from(await pdf.save({ useObjectStreams: false, objectsPerTick: Infinity }));
  return signpdf.sign(prepared, key.signer, info.at);
}
