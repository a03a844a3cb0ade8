import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdf from '@signpdf/signpdf';
import { DEFAULT_SIGNATURE_LENGTH } from '@signpdf/utils';
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFImage, type PDFPage } from 'pdf-lib';
import type { ContractLayout } from '../contracts/contract.entities';
import { boxOnPage, printable, type Box } from '../contracts/contract.layout';
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

type Fonts = { regular: PDFFont; bold: PDFFont; script: PDFFont; mono: PDFFont };

export async function embedFonts(pdf: PDFDocument): Promise<Fonts> {
  return {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    script: await pdf.embedFont(StandardFonts.TimesRomanItalic),
    mono: await pdf.embedFont(StandardFonts.Courier),
  };
}

/** The largest size (at most `max`) at which `text` fits `width`, not below the smallest legible one. */
function fittingSize(font: PDFFont, text: string, width: number, max: number): number {
  const atOne = font.widthOfTextAtSize(text, 1);
  return Math.max(MIN_TEXT_SIZE, Math.min(max, atOne > 0 ? width / atOne : max));
}

function drawValue(page: PDFPage, fonts: Fonts, box: Box, value: StampValue): void {
  const pad = Math.min(2, box.width / 10, box.height / 10);
  const inner = { x: box.x + pad, y: box.y + pad, width: box.width - 2 * pad, height: box.height - 2 * pad };
  switch (value.kind) {
    case 'TEXT':
    case 'SCRIPT': {
      const font = value.kind === 'TEXT' ? fonts.regular : fonts.script;
      const text = printable(value.text);
      const size = fittingSize(font, text, inner.width, Math.min(value.kind === 'TEXT' ? 11 : 28, inner.height * 0.8));
      page.drawText(text, {
        x: inner.x,
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
      page.drawText('X', {
        x: inner.x + (inner.width - fonts.bold.widthOfTextAtSize('X', size)) / 2,
        y: inner.y + (inner.height - size * 0.72) / 2,
        size,
        font: fonts.bold,
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
export function stampFields(pdf: PDFDocument, fonts: Fonts, stamps: Stamp[]): Map<string, string> {
  const pages = pdf.getPages();
  const unplaced = new Map<string, string>();
  for (const stamp of stamps) {
    if (!stamp.layout) {
      unplaced.set(stamp.key, 'no layout');
      continue;
    }
    const pageNumber = stamp.layout.page ?? 1;
    const page = pages[pageNumber - 1];
    if (!page) {
      unplaced.set(stamp.key, `page ${pageNumber} is not in the document`);
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
    private readonly fonts: Fonts,
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

  /** `text` broken into lines no wider than `width`; a word longer than a line is cut. */
  private wrap(text: string, font: PDFFont, size: number, width: number): string[] {
    const lines: string[] = [];
    for (const paragraph of printable(text).split('\n')) {
      let line = '';
      for (const word of paragraph.split(' ')) {
        let candidate = line ? `${line} ${word}` : word;
        while (font.widthOfTextAtSize(candidate, size) > width) {
          if (line) {
            lines.push(line);
            line = '';
            candidate = word;
            continue;
          }
          let cut = candidate.length - 1;
          while (cut > 1 && font.widthOfTextAtSize(candidate.slice(0, cut), size) > width) cut--;
          lines.push(candidate.slice(0, cut));
          candidate = candidate.slice(cut);
        }
        line = candidate;
      }
      lines.push(line);
    }
    return lines;
  }

  text(
    text: string,
    options: { font?: keyof Fonts; size?: number; indent?: number; gap?: number; colour?: ReturnType<typeof rgb> } = {},
  ): void {
    const font = this.fonts[options.font ?? 'regular'];
    const size = options.size ?? 10;
    const indent = options.indent ?? 0;
    const leading = size * 1.35;
    this.y -= options.gap ?? 0;
    for (const line of this.wrap(text, font, size, A4.width - 2 * MARGIN - indent)) {
      this.room(leading);
      this.y -= leading;
      this.page.drawText(line, {
        x: MARGIN + indent,
        y: this.y + size * 0.25,
        size,
        font,
        color: options.colour ?? rgb(0, 0, 0),
      });
    }
  }

  /** A labelled value: the label on its own line, the value under it, indented. */
  entry(label: string, value: string, font: keyof Fonts = 'regular'): void {
    this.text(label, { font: 'bold', size: 9, gap: 4, colour: MUTED });
    this.text(value, { font, size: font === 'mono' ? 9 : 10, indent: 12 });
  }

  /** The signature itself, as it is stamped. */
  signature(value: StampValue): void {
    const height = 48;
    this.room(height + 8);
    this.y -= height + 4;
    drawValue(this.page, this.fonts, { x: MARGIN + 12, y: this.y, width: 220, height }, value);
    this.page.drawLine({
      start: { x: MARGIN + 12, y: this.y },
      end: { x: MARGIN + 232, y: this.y },
      thickness: 0.5,
      color: MUTED,
    });
  }
}

/** Appends the audit pages: who signed what, when, from where, and the document's hashes. Returns the last. */
export function appendAuditPages(pdf: PDFDocument, fonts: Fonts, record: AuditRecord): PDFPage {
  const out = new PageWriter(pdf, fonts);
  out.text('Electronic signature record', { font: 'bold', size: 16 });
  out.text(`Appended by Gather to "${record.documentName}"; the PDF is digitally signed after this page was added.`, {
    size: 9,
    gap: 4,
    colour: MUTED,
  });
  out.entry('Document', record.documentName);
  out.entry('Contract id', record.contractId, 'mono');
  out.entry('Organization', record.organizationName);
  out.entry('Signer', record.signerEmail ? `${record.signerName} <${record.signerEmail}>` : record.signerName);
  out.entry('Signed at (UTC)', record.at.toISOString(), 'mono');
  out.entry('IP address', record.ip, 'mono');
  out.entry('User agent', record.userAgent || '(none)');
  out.entry('SHA-256 of the original document', record.originalSha256, 'mono');
  out.entry(
    'SHA-256 of the document with the fields filled in (before this record and the digital signature)',
    record.stampedSha256,
    'mono',
  );
  out.entry(
    'Digital signature',
    `PKCS#7 detached (adbe.pkcs7.detached), SHA-256, by the certificate ${record.certificate.subject}`,
  );
  out.entry('Certificate SHA-256 fingerprint', record.certificate.sha256, 'mono');
  out.text('Fields', { font: 'bold', size: 12, gap: 12 });
  if (record.stamps.length === 0) out.text('This signer had no fields to fill in.', { gap: 4 });
  for (const stamp of record.stamps) {
    const where = record.unplaced.get(stamp.key);
    const page = stamp.layout?.page ?? 1;
    out.entry(
      `${stamp.key} (${stamp.type}${where ? `, not placed on the document: ${where}` : `, page ${page}`})`,
      stamp.shown,
    );
  }
  out.text('Signature', { font: 'bold', size: 12, gap: 12 });
  out.signature(record.signature);
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
