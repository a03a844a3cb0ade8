import type { ModuleDescriptor } from '../../kernel/module';
import { SignInLink, UserSession } from './session.entities';
import { sessionRoutes } from './session.routes';

/**
 * A user's sign-in in a browser: links mailed through the notification outbox, the sessions they open (the
 * `gather_session` cookie every API takes as it takes an API key: app.ts), the sign-in API and pages. Its tables'
 * migration is in src/modules/migrations (it adds a kind of message too).
 */
export const sessionsModule: ModuleDescriptor = {
  name: 'sessions',
  entities: [SignInLink, UserSession],
  routes: sessionRoutes,
};
