import type { ModuleDescriptor } from '../../kernel/module';
import { portalPageRoutes } from './portal.page.routes';

export const portalModule: ModuleDescriptor = {
  name: 'portal',
  // The recipient's page, its assets and the resumable uploads (portal.page.routes.ts).
  routes: portalPageRoutes,
};
