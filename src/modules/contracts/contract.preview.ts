import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { readFile, requireStoredFile } from '../files/file.service';
import { PREVIEW, runPdfTask } from './contract.pdf';
import type { PreviewBox } from './contract.pdf-tasks';
import { requireContract } from './contract.service';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'storage' | 'log'>;

/**
 * A PDF contract with its fields (blue) and annotations (orange) drawn where their layouts place them,
 * so an owner can check the layout. Boxes on pages the document lacks are left out.
 */
export async function previewContract(ctx: Ctx, id: string): Promise<{ name: string; bytes: Uint8Array }> {
  const contract = await requireContract(ctx, id);
  const file = await requireStoredFile(ctx.db, contract.file.id);
  if (file.mimeType !== 'application/pdf')
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Only PDF contracts have a preview; this one is ${file.mimeType}`);
  const boxes: PreviewBox[] = [
    ...contract.fields.map((f): PreviewBox => ({
      kind: 'field',
      layout: f.layout ?? {},
      label: f.placeholder ? `${f.type}: ${f.placeholder}` : f.type,
    })),
    ...contract.annotations.map((a): PreviewBox => ({
      kind: 'annotation',
      layout: a.layout ?? {},
      label: a.defaultValue ? `${a.type}: ${a.defaultValue}` : a.type,
    })),
  ];
  const bytes = await runPdfTask(ctx, PREVIEW, async () => ({ bytes: await readFile(ctx, file), boxes }), {
    field: [],
  });
  return { name: file.name.replace(/(\.pdf)?$/i, '.preview.pdf'), bytes };
}
