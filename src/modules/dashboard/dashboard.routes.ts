import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { bundledAssets, sendPage, serveBundledAssets } from '../../kernel/http/bundle';
import { DASHBOARD_ASSET_PREFIX, DASHBOARD_CSP, renderDashboardPage } from './dashboard.page';

export const DASHBOARD_STYLESHEET = join(__dirname, '../../web/dashboard/dashboard.page.css');

const dashboardAssets = bundledAssets(
  'dashboard',
  join(__dirname, '../../web/dashboard/dashboard.client.ts'),
  DASHBOARD_STYLESHEET,
);

/** `GET /dashboard` and its assets: public, as they hold no data (the page asks with the pasted key). */
export async function dashboardRoutes(scope: FastifyInstance): Promise<void> {
  scope.get('/dashboard', { config: { public: true } }, async (_request, reply) =>
    sendPage(reply, DASHBOARD_CSP, renderDashboardPage(await dashboardAssets())),
  );
  serveBundledAssets(scope, DASHBOARD_ASSET_PREFIX, dashboardAssets);
}
