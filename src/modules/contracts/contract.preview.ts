import { rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { readFile, requireStoredFile } from '../files/file.service';
import type { ContractLayout } from './contract.entities';
import { boxOnPage, printable, readContractPdf } from './contract.layout';
import { requireContract } from './contract.service';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'storage'>;

const FIELD_COLOUR = rgb(0.1, 0.35, 0.8);
const ANNOTATION_COLOUR = rgb(0.85, 0.45, 0.05);

function drawBox(
  page: PDFPage,
  font: PDFFont,
  layout: ContractLayout,
  label: string,
  colour: ReturnType<typeof rgb>,
): void {
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

/**
 * A PDF contract with its fields (blue) and annotations (orange) drawn where their layouts place them,
 * so an owner can check the layout. Boxes on pages the document lacks are left out.
 */
export async function previewContract(ctx: Ctx, id: string): Promise<{ name: string; bytes: Uint8Array }> {
  const contract = await requireContract(ctx, id);
  const file = await requireStoredFile(ctx.db, contract.file.id);
  if (file.mimeType !== 'application/pdf')
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Only PDF contracts have a preview; this one is ${file.mimeType}`);
  const pdf = await readContractPdf(await readFile(ctx, file));
  if (!pdf) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The contract starts like a PDF but could not be read as one');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = pdf.getPages();
  const boxes = [
    ...contract.fields.map((f) => ({
      layout: f.layout,
      label: f.placeholder ? `${f.type}: ${f.placeholder}` : f.type,
      colour: FIELD_COLOUR,
    })),
    ...contract.annotations.map((a) => ({
      layout: a.layout,
      label: a.defaultValue ? `${a.type}: ${a.defaultValue}` : a.type,
      colour: ANNOTATION_COLOUR,
    })),
  ];
  for (const { layout, label, colour } of boxes) {
    const page = pages[(layout?.page ?? 1) - 1];
    if (page) drawBox(page, font, layout ?? {}, label, colour);
  }
  return { name: file.name.replace(/(\.pdf)?$/i, '.preview.pdf'), bytes: await pdf.save() };
}
