import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { bundledAssets, sendPage, serveBundledAssets } from '../../kernel/http/bundle';
import { DASHBOARD_STYLESHEET } from '../dashboard/dashboard.routes';
import { CONSOLE_ASSET_PREFIX, CONSOLE_CSP, renderConsolePage } from './console.page';

/** The console's script (React) and its styles: the dashboard's, which it builds on, then its own. */
export const consoleAssets = bundledAssets('console', join(__dirname, '../../web/console/main.tsx'), [
  DASHBOARD_STYLESHEET,
  join(__dirname, '../../web/console/console.page.css'),
]);

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
}
