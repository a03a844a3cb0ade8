import { createContext, useContext } from 'react';
import type { ConsoleViewerQuery } from '../../generated/console/graphql';

/** The signed-in user and organization (the shell renders no screen before it knows them). */
export type Session = ConsoleViewerQuery;

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in console');
  return session;
}
