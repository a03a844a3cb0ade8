import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from '../../generated/console/graphql';

// The console's one way to the service: GraphQL over HTTP (`/graphql`, the session cookie sent as
// `credentials: 'same-origin'`) and over graphql-ws at the same origin (the browser sends the cookie with
// the upgrade). Whoever has no session (401, UNAUTHENTICATED) is sent to `/sign-in?next=<this path>`.

export type UserError = { field: readonly string[] | null; message: string; code: string };

/** A refusal the page shows as it is: the service's message and code. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly userErrors: readonly UserError[] = [],
  ) {
    super(message);
  }
}

/** The sign-in page, coming back to where the owner was. */
export const signInPath = (next = `${location.pathname}${location.search}`) =>
  `/sign-in?next=${encodeURIComponent(next)}`;

let leaving = false;
function toSignIn(): void {
  if (leaving) return;
  leaving = true;
  location.assign(signInPath());
}

type Variables<V> = V extends Record<string, never> ? [] | [V] : [V];
type GraphQLBody<R> = {
  data?: R | null;
  errors?: Array<{ message: string; extensions?: { code?: string; userErrors?: UserError[] } }>;
};

/** Runs a typed document over HTTP; its first error, if any, is thrown as an ApiError. */
export async function gql<R, V>(document: TypedDocumentString<R, V>, ...[variables]: Variables<V>): Promise<R> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError('Gather cannot be reached: check the connection, then try again.', 'NETWORK');
  }
  if (response.status === 401) {
    toSignIn();
    throw new ApiError('Your session has ended: signing in again…', 'UNAUTHENTICATED');
  }
  let body: GraphQLBody<R>;
  try {
    body = (await response.json()) as GraphQLBody<R>;
  } catch {
    throw new ApiError(`Gather answered ${response.status} ${response.statusText}`.trim(), 'HTTP');
  }
  const error = body.errors?.[0];
  if (error) {
    if (error.extensions?.code === 'UNAUTHENTICATED') toSignIn();
    throw new ApiError(error.message, error.extensions?.code, error.extensions?.userErrors ?? []);
  }
  return body.data as R;
}

/** A REST call of the service (bytes move over REST: contracts, logos), with the session cookie. */
export async function rest<T>(method: string, path: string, body?: BodyInit, contentType?: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: contentType ? { 'content-type': contentType } : {},
      body,
    });
  } catch {
    throw new ApiError('Gather cannot be reached: check the connection, then try again.', 'NETWORK');
  }
  if (response.status === 401) {
    toSignIn();
    throw new ApiError('Your session has ended: signing in again…', 'UNAUTHENTICATED');
  }
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const detail = (json as { detail?: unknown } | undefined)?.detail;
    // A 422's problems, one per field, as GraphQL's userErrors are: a form shows each at its field.
    const problems: UserError[] = Array.isArray(detail)
      ? detail.map((entry: { loc?: (string | number)[]; msg?: string; type?: string }) => ({
          field: (entry.loc ?? []).slice(1).map(String),
          message: entry.msg ?? '',
          code: entry.type ?? 'INVALID',
        }))
      : [];
    const message =
      typeof detail === 'string'
        ? detail
        : problems.length
          ? problems.map((problem) => problem.message).join('; ')
          : `Gather answered ${response.status}`;
    throw new ApiError(message, String(response.status), problems);
  }
  return json as T;
}

/** A document's bytes (a preview), with the session cookie; the path is taken from its download URL. */
export async function download(url: string): Promise<Blob> {
  const response = await fetch(new URL(url, location.origin).pathname, { credentials: 'same-origin' });
  if (response.status === 401) toSignIn();
  if (!response.ok) throw new ApiError(`Gather answered ${response.status}`, String(response.status));
  return response.blob();
}

/** The path of one of the service's absolute URLs (its PUBLIC_URL may name another host than this page's). */
export const localPath = (url: string): string => {
  const parsed = new URL(url, location.origin);
  return `${parsed.pathname}${parsed.search}`;
};

// Live updates: one graphql-ws connection for the page, opened by the first subscription.

/** `idle`: no screen follows anything (the socket opens with the first subscription and closes after the last). */
export type LiveState = 'idle' | 'connecting' | 'up' | 'down';
type LiveListener = (state: LiveState) => void;
let liveState: LiveState = 'idle';
const liveListeners = new Set<LiveListener>();
const reconnectListeners = new Set<() => void>();
/** The socket dropped (not closed on purpose): the next connection is a reconnection, after which pages read again. */
let dropped = false;
let ws: Client | null = null;

function setLive(state: LiveState): void {
  liveState = state;
  for (const listener of liveListeners) listener(state);
}

export function onLiveState(listener: LiveListener): () => void {
  liveListeners.add(listener);
  listener(liveState);
  return () => liveListeners.delete(listener);
}

/** Called after each reconnection: what a page shows may have changed while it was down (it reads again). */
export function onReconnect(listener: () => void): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

const refused = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && 'code' in event && (event as CloseEvent).code === 4403;

/** A refused socket may be an ended session: asked over HTTP, which sends to sign-in if so. */
async function checkSession(): Promise<void> {
  await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { id } }' }),
  }).then(
    (response) => {
      if (response.status === 401) toSignIn();
    },
    () => undefined,
  );
}

function client(): Client {
  ws ??= createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    lazy: true,
    lazyCloseTimeout: 5_000,
    keepAlive: 10_000,
    retryAttempts: Number.MAX_SAFE_INTEGER,
    shouldRetry: (event) => !refused(event),
    retryWait: (retries) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** retries, 5000) * (0.75 + Math.random() / 2))),
    on: {
      connecting: () => setLive(dropped ? 'down' : 'connecting'),
      connected: () => {
        const again = dropped;
        dropped = false;
        setLive('up');
        if (again) for (const listener of reconnectListeners) listener();
      },
      closed: (event) => {
        // 1000: closed on purpose, the last subscription having ended a while ago.
        const normal = typeof event === 'object' && event !== null && (event as CloseEvent).code === 1000;
        dropped = !normal;
        setLive(normal ? 'idle' : 'down');
        if (refused(event)) {
          // Not retried by the client: the next subscription opens a new socket.
          void checkSession();
        }
      },
    },
  });
  return ws;
}

/** Follows a typed subscription; answers the function that stops it. */
export function subscribe<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  next: (data: R) => void,
): () => void {
  return client().subscribe<R>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (message) => {
        if (message.data) next(message.data);
      },
      error: () => setLive('down'),
      complete: () => undefined,
    },
  );
}

/** A payload's record once its userErrors are empty; else its userErrors, thrown as one ApiError. */
export function accepted<P extends { userErrors: readonly UserError[] }>(payload: P): P {
  if (payload.userErrors.length)
    throw new ApiError(payload.userErrors.map((error) => error.message).join(' '), 'USER_ERROR', payload.userErrors);
  return payload;
}
