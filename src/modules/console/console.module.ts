import type { ModuleDescriptor } from '../../kernel/module';
import { consoleRoutes } from './console.routes';

/** The owner's console at /app (docs/console.md): a browser client of the GraphQL API, nothing of its own. */
export const consoleModule: ModuleDescriptor = {
  name: 'console',
  routes: consoleRoutes,
};
