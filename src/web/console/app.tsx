import { useEffect, useState, type ReactNode } from 'react';
import { graphql } from '../../generated/console';
import { personName } from '../shared/labels';
import { onLiveState, signInPath, type LiveState } from './api';
import { useQuery } from './hooks';
import { Link, navigate, useLocation } from './router';
import { SessionContext, type Session } from './session';
import { Alert, Loading } from './ui';
import { RequestScreen } from './screens/request';
import { RequestsScreen } from './screens/requests';
import { NewRequestScreen } from './screens/request-new';
import { TemplatesScreen, TemplateScreen } from './screens/templates';
import { BulkSendNewScreen, BulkSendScreen, BulkSendsScreen } from './screens/bulk-sends';
import { ContractEditorRedirect, ContractsScreen } from './screens/contracts';
import { WebhooksScreen, WebhookScreen } from './screens/webhooks';
import { SettingsScreen } from './screens/settings';
import { UsersScreen } from './screens/users';

const ViewerDocument = graphql(`
  query ConsoleViewer {
    viewer {
      id
      email
      firstName
      lastName
      role
    }
    organization {
      id
      name
    }
  }
`);

const LIVE_TEXT: Record<LiveState, string> = {
  idle: '',
  connecting: 'Connecting…',
  up: 'Live',
  down: 'Reconnecting…',
};

function LiveStatus() {
  const [state, setState] = useState<LiveState>('idle');
  useEffect(() => onLiveState(setState), []);
  const kind = state === 'up' ? 'up' : state === 'down' ? 'down' : 'pending';
  // The region stays in the page (a live region must exist before it speaks); it shows when something is followed.
  return (
    <p className="status" role="status" data-state={kind} id="live-status" hidden={state === 'idle'}>
      {LIVE_TEXT[state]}
    </p>
  );
}

async function signOut(): Promise<void> {
  // The sign-in work's endpoint (docs/console.md); the page then goes to sign in again.
  await fetch('/auth/sign-out', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
  location.assign(signInPath('/app'));
}

function NavLink({ to, children, current }: { to: string; children: ReactNode; current: boolean }) {
  return (
    <Link to={to} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function Shell({ session, children }: { session: Session; children: ReactNode }) {
  const { path } = useLocation();
  const admin = session.viewer.role === 'ADMIN';
  const section = path.split('/')[2] ?? 'requests';
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">
          <Link to="/app/requests">Gather</Link> <span>{session.organization.name}</span>
        </p>
        <LiveStatus />
        <nav aria-label="Console">
          <NavLink to="/app/requests" current={section === 'requests' && path !== '/app/requests/new'}>
            Requests
          </NavLink>
          <NavLink to="/app/requests/new" current={path === '/app/requests/new'}>
            New request
          </NavLink>
          <NavLink to="/app/templates" current={section === 'templates'}>
            Templates
          </NavLink>
          <NavLink to="/app/contracts" current={section === 'contracts'}>
            Contracts
          </NavLink>
          {admin && (
            <NavLink to="/app/webhooks" current={section === 'webhooks'}>
              Webhooks
            </NavLink>
          )}
          {admin && (
            <NavLink to="/app/settings" current={section === 'settings'}>
              Settings
            </NavLink>
          )}
          {admin && (
            <NavLink to="/app/users" current={section === 'users'}>
              Users
            </NavLink>
          )}
          <a href="/dashboard">Live dashboard</a>
        </nav>
        <div className="who">
          <span>{personName(session.viewer, session.viewer.email)}</span>
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">{children}</main>
    </>
  );
}

function NotFound() {
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>
        Nothing is at this address. <Link to="/app/requests">Go to the requests</Link>.
      </p>
    </section>
  );
}

function AdminOnly({ session, children }: { session: Session; children: ReactNode }) {
  if (session.viewer.role === 'ADMIN') return <>{children}</>;
  return (
    <section className="page">
      <h1>For administrators</h1>
      <p>Only an ADMIN of {session.organization.name} may change this.</p>
    </section>
  );
}

/** The screen for a path under /app. */
function Screen({ session }: { session: Session }) {
  const { path } = useLocation();
  const parts = path.split('/').slice(2);
  // A key per path: a screen starts afresh (its state, its reads) when the path names another record.
  switch (parts[0]) {
    case undefined:
    case '':
      return <Redirect to="/app/requests" />;
    case 'requests':
      if (parts.length === 1) return <RequestsScreen />;
      if (parts[1] === 'new' && parts.length === 2) return <NewRequestScreen />;
      if (parts.length === 2) return <RequestScreen key={parts[1]} id={parts[1]} />;
      break;
    case 'templates':
      if (parts.length === 1) return <TemplatesScreen />;
      if (parts.length === 2) return <TemplateScreen key={parts[1]} id={parts[1]} />;
      if (parts.length === 3 && parts[2] === 'send') return <BulkSendNewScreen key={parts[1]} templateId={parts[1]} />;
      break;
    case 'bulk-sends':
      if (parts.length === 1) return <BulkSendsScreen />;
      if (parts.length === 2) return <BulkSendScreen key={parts[1]} id={parts[1]} />;
      break;
    case 'contracts':
      if (parts.length === 1) return <ContractsScreen />;
      if (parts.length === 3 && parts[2] === 'edit') return <ContractEditorRedirect key={parts[1]} id={parts[1]} />;
      break;
    case 'webhooks':
      if (parts.length === 1)
        return (
          <AdminOnly session={session}>
            <WebhooksScreen />
          </AdminOnly>
        );
      if (parts.length === 2)
        return (
          <AdminOnly session={session}>
            <WebhookScreen key={parts[1]} id={parts[1]} />
          </AdminOnly>
        );
      break;
    case 'settings':
      if (parts.length === 1)
        return (
          <AdminOnly session={session}>
            <SettingsScreen />
          </AdminOnly>
        );
      break;
    case 'users':
      if (parts.length === 1)
        return (
          <AdminOnly session={session}>
            <UsersScreen />
          </AdminOnly>
        );
      break;
  }
  return <NotFound />;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function App() {
  const session = useQuery(ViewerDocument, {});
  if (!session.data) {
    return (
      <main id="main" className="boot">
        {session.error ? (
          <Alert>
            {session.error.message} <button onClick={session.reload}>Try again</button>
          </Alert>
        ) : (
          <Loading what="Signing in" />
        )}
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session.data}>
      <Shell session={session.data}>
        <Screen session={session.data} />
      </Shell>
    </SessionContext.Provider>
  );
}
