import type { ModuleDescriptor } from '../../kernel/module';
import { Migration20261124000000_portal } from './Migration20261124000000_portal';
import { Migration20261129000000_partial_uploads } from './Migration20261129000000_partial_uploads';
import { PartialUpload, RECIPIENT_SIGN_IN_ENTITIES, Submission } from './portal.entities';
import { portalPageRoutes } from './portal.page.routes';
import { portalResolvers } from './portal.resolvers';
import { portalRoutes } from './portal.routes';

export const portalModule: ModuleDescriptor = {
  name: 'portal',
  entities: [...RECIPIENT_SIGN_IN_ENTITIES, Submission, PartialUpload],
  migrations: [
    { name: 'Migration20261124000000_portal', class: Migration20261124000000_portal },
    { name: 'Migration20261129000000_partial_uploads', class: Migration20261129000000_partial_uploads },
  ],
  resolvers: portalResolvers,
  // The recipient API (portal.routes.ts); the recipient's page, its assets and resumable uploads
  // (portal.page.routes.ts).
  routes: async (scope) => {
    await scope.register(portalRoutes);
    await scope.register(portalPageRoutes);
  },
};
