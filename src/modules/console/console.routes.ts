import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { bundledAssets, sendPage, serveBundledAssets } from '../../kernel/http/bundle';
import {
  CONSOLE_ASSET_PREFIX,
  CONSOLE_CSP,
  CONSOLE_STYLESHEETS,
  PDF_PREVIEW_ASSET_PREFIX,
  renderConsolePage,
} from './console.page';
import { editorRoutes } from './editor.routes';

/** The console's script (React) and its styles. */
export const consoleAssets = bundledAssets(
  'console',
  join(__dirname, '../../web/console/main.tsx'),
  CONSOLE_STYLESHEETS,
);

/**
 * The PDF preview's script (src/web/console/pdf-preview.client.ts with pdf.js) and pdf.js's worker, apart from
 * the console's script and its budget: the console loads it when a PDF preview first opens.
 */
export const pdfPreviewAssets = bundledAssets(
  'pdf-preview',
  join(__dirname, '../../web/console/pdf-preview.client.ts'),
  [],
  { 'pdf.worker': require.resolve('pdfjs-dist/build/pdf.worker.min.mjs') },
);

/**
 * `GET /app` and every path under it (the script routes them), and its assets. Public like the dashboard:
 * the shell holds no data, and the script sends whoever has no session to `/sign-in`.
 */
export async function consoleRoutes(scope: FastifyInstance): Promise<void> {
  const open = { config: { public: true } };
  const shell = async (_request: unknown, reply: Parameters<typeof sendPage>[0]) =>
    sendPage(reply, CONSOLE_CSP, renderConsolePage(await consoleAssets(), await pdfPreviewAssets()));
  scope.get('/app', open, shell);
  scope.get('/app/*', open, shell);
  serveBundledAssets(scope, CONSOLE_ASSET_PREFIX, consoleAssets);
  serveBundledAssets(scope, PDF_PREVIEW_ASSET_PREFIX, pdfPreviewAssets);
  await editorRoutes(scope);
}
