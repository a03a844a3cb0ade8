import type { ModuleDescriptor } from '../../kernel/module';
import { dashboardRoutes } from './dashboard.routes';

/** The live dashboard page (README, Dashboard): a browser client of the GraphQL API, nothing of its own. */
export const dashboardModule: ModuleDescriptor = {
  name: 'dashboard',
  routes: dashboardRoutes,
};
