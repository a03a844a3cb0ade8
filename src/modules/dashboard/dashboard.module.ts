import type { ModuleDescriptor } from '../../kernel/module';
import { dashboardRoutes } from './dashboard.routes';

/** The live dashboard page (docs/graphql.md, the dashboard): a browser client of the GraphQL API, nothing of its own. */
export const dashboardModule: ModuleDescriptor = {
  name: 'dashboard',
  routes: dashboardRoutes,
};
