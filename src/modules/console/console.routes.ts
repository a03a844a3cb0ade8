import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { bundledAssets, sendPage, serveBundledAssets } from '../../kernel/http/bundle';
import { CONSOLE_ASSET_PREFIX, CONSOLE_CSP, CONSOLE_STYLESHEETS, renderConsolePage } from './console.page';
import { editorRoutes } from './editor.routes';

/** The console's script (React) and its styles. */
export const consoleAssets = bundledAssets(
  'console',
  join(__dirname, '../../web/console/main.tsx'),
  CONSOLE_STYLESHEETS,
);

/**
 * `GET /app` and every path under it (the script routes them), and its assets. Public like the dashboard:
 * the shell holds no data, and the script sends whoever has no session to `/sign-in`.
 */
export async function consoleRoutes(scope: FastifyInstance): Promise<void> {
  const open = { config: { public: true } };
  const shell = async (_request: unknown, reply: Parameters<typeof sendPage>[0]) =>
    sendPage(reply, CONSOLE_CSP, renderConsolePage(await consoleAssets()));
  scope.get('/app', open, shell);
  scope.get('/app/*', open, shell);
  serveBundledAssets(scope, CONSOLE_ASSET_PREFIX, consoleAssets);
  await editorRoutes(scope);
}
