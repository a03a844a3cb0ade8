import { rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { AppError } from '../../kernel/errors/app-error';
import type { ContractLayout } from './contract.entities';
import { boxOnPage, printable, readContractPdf } from './contract.layout';
import { checkPdf } from './contract.pdf-check';

// Tasks of the PDF worker (contract.pdf.ts runs them): each checks the PDF against the limits first.

/** One box the preview draws: a field (blue) or an annotation (orange). */
export type PreviewBox = { kind: 'field' | 'annotation'; layout: ContractLayout; label: string };

const COLOURS = { field: rgb(0.1, 0.35, 0.8), annotation: rgb(0.85, 0.45, 0.05) };

/**
 * An uploaded PDF: refused past the limits, then read as the preview and signing will, so a PDF they could not
 * afford (past the worker's time or heap) is refused now. One that pdf-lib cannot read is kept: its preview says so.
 */
export async function inspect(bytes: Uint8Array): Promise<void> {
  await checkPdf(bytes, ['file']);
  await readContractPdf(bytes);
}

function drawBox(page: PDFPage, font: PDFFont, { kind, layout, label }: PreviewBox): void {
  const colour = COLOURS[kind];
  const { x, y, width, height } = boxOnPage(page, layout);
  page.drawRectangle({ x, y, width, height, borderColor: colour, borderWidth: 1, color: colour, opacity: 0.12 });
  const size = Math.max(4, Math.min(9, height - 4));
  page.drawText(printable(label), {
    x: x + 3,
    y: y + (height - size) / 2 + 1,
    size,
    font,
    color: colour,
    maxWidth: Math.max(width - 6, 1),
  });
}

/** The PDF with its boxes drawn; boxes on pages the document lacks are left out. */
export async function preview({ bytes, boxes }: { bytes: Uint8Array; boxes: PreviewBox[] }): Promise<Uint8Array> {
  await checkPdf(bytes, []);
  const pdf = await readContractPdf(bytes);
  if (!pdf) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The contract starts like a PDF but could not be read as one');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = pdf.getPages();
  for (const box of boxes) {
    const page = pages[(box.layout.page ?? 1) - 1];
    if (page) drawBox(page, font, box);
  }
  return pdf.save({ objectsPerTick: Infinity });
}
