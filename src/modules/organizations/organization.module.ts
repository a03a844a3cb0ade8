import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DetailBody } from '../../kernel/rest/schemas';
import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261124000002_organization_settings } from './Migration20261124000002_organization_settings';
import { OrganizationSettings } from './organization.entities';
import { LOGO_CACHE_SECONDS } from './organization.limits';
import { organizationLoaders } from './organization.loaders';
import { organizationResolvers } from './organization.resolvers';
import { organizationRestRows } from './organization.rest';
import { logoBytes } from './organization.service';
import { requestSettingsPart } from './organization.request-creation';
import { requestCreationParts } from '../requests/request.creation';

/** The public logo: mails and portal pages load it without any credential, by a URL naming its content. */
async function logoRoute(scope: FastifyInstance): Promise<void> {
  scope.get<{ Params: { org_id: string; hash: string } }>(
    '/branding/:org_id/logo/:hash',
    {
      config: { public: true, openapi: { download: true } },
      schema: {
        tags: ['Organization settings'],
        summary: "An organization's logo, at the URL branding's `logo_url` gives (public, cached for good)",
        params: Type.Object({ org_id: Type.String(), hash: Type.String() }),
        response: { 404: DetailBody },
      },
    },
    async (request, reply) => {
      const { org_id, hash } = request.params;
      const logo =
        /^[0-9a-f-]{36}$/.test(org_id) && /^[0-9a-f]{16}$/.test(hash) ? await logoBytes(scope.db, org_id, hash) : null;
      if (!logo) return reply.code(404).send({ detail: 'Logo not found' });
      reply
        .header('content-type', logo.type)
        .header('cache-control', `public, max-age=${LOGO_CACHE_SECONDS}, immutable`)
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'cross-origin');
      // Opened on its own, an SVG is a document: it may style itself and do nothing else.
      if (logo.type === 'image/svg+xml')
        reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      return reply.send(logo.bytes);
    },
  );
}

export const organizationsModule: ModuleDescriptor = {
  name: 'organizations',
  entities: [OrganizationSettings],
  migrations: [
    { name: 'Migration20261124000002_organization_settings', class: Migration20261124000002_organization_settings },
  ],
  loaders: organizationLoaders,
  resolvers: organizationResolvers,
  restRows: organizationRestRows,
  contributes: [requestCreationParts.contribute(requestSettingsPart)],
  routes: logoRoute,
};
