import { ParseSpeeds, PDFDocument, type PDFPage } from 'pdf-lib';
import type { ContractLayout } from './contract.entities';

// A contract's PDF, and where a field or an annotation sits on its pages, as the preview draws it and
// signing stamps it.

/** A box without a size in its layout gets this one (points), enough for a signature line. */
export const DEFAULT_BOX = { width: 150, height: 30 };

export type Box = { x: number; y: number; width: number; height: number };

/** A layout's box in PDF coordinates (points up from the page's bottom left corner). */
export function boxOnPage(page: PDFPage, layout: ContractLayout): Box {
  const { width: pageWidth, height: pageHeight } = page.getSize();
  const { width, height } = layout.style ?? DEFAULT_BOX;
  const { offsetX, offsetY, anchorPoint } = layout.position ?? { offsetX: 0, offsetY: 0, anchorPoint: 'TOP_LEFT' };
  // Layouts measure from a corner, y downward from the top ones; PDF measures up from the bottom left.
  const x = anchorPoint.endsWith('RIGHT') ? pageWidth - offsetX - width : offsetX;
  const y = anchorPoint.startsWith('TOP') ? pageHeight - offsetY - height : offsetY;
  return { x, y, width, height };
}

/** The standard fonts encode WinAnsi only; anything else would make pdf-lib throw. */
export const printable = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

/**
 * The contract's PDF, or null when pdf-lib cannot read it. pdf-lib reads the page tree lazily, so a
 * file that merely starts like a PDF fails only when its pages are asked for: they are asked for here.
 * Only the PDF worker calls it (contract.pdf.ts), after checkPdf, so it reads without yielding.
 */
export async function readContractPdf(bytes: Uint8Array): Promise<PDFDocument | null> {
  try {
    const pdf = await PDFDocument.load(bytes, { ignoreEncryption: true, parseSpeed: ParseSpeeds.Fastest });
    return pdf.getPageCount() > 0 ? pdf : null;
  } catch {
    return null;
  }
}
