import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { bundledAssets } from '../../kernel/http/bundle';
import { DASHBOARD_ASSET_PREFIX, DASHBOARD_CSP, renderDashboardPage } from './dashboard.page';

const YEAR_SECONDS = 365 * 24 * 3600;

const dashboardAssets = bundledAssets(
  'dashboard',
  join(__dirname, '../../web/dashboard/dashboard.client.ts'),
  join(__dirname, '../../web/dashboard/dashboard.page.css'),
);

/** `GET /dashboard` and its assets: public, as they hold no data (the page asks with the pasted key). */
export async function dashboardRoutes(scope: FastifyInstance): Promise<void> {
  const open = { config: { public: true } };
  scope.get('/dashboard', open, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .send(renderDashboardPage(await dashboardAssets())),
  );
  scope.get<{ Params: { name: string } }>(`${DASHBOARD_ASSET_PREFIX}:name`, open, async (request, reply) => {
    const asset = (await dashboardAssets()).byName.get(request.params.name);
    if (!asset) return reply.code(404).send({ detail: 'Not found' });
    return reply
      .header('content-type', asset.type)
      .header('cache-control', `public, max-age=${YEAR_SECONDS}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
}
