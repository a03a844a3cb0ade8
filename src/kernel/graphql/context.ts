import type { Reader } from '../db/db';
import type {
  SigningSettings,
  SmsSettings,
  StorageConfig,
  UnfinishedUploadBytes,
  WebhookSettings,
} from '../../config/config';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error';
import type { Outbox } from '../events/outbox';
import type { Storage } from '../storage';
import type { Clock } from '../clock';
import type { SharedCaches } from '../db/shared-cache';

/**
 * Who did something, as the activity log and events record it: a user (an API key's), a recipient
 * (a portal session's), or the service itself (timed work).
 */
export type Actor = {
  type: 'USER' | 'RECIPIENT' | 'SYSTEM';
  /** The user's or the recipient's id; null for SYSTEM. */
  id: string | null;
  /** The client's address and user agent, recorded for recipients (the audit trail of a signature). */
  ip?: string | null;
  userAgent?: string | null;
};

/**
 * The caller of an operation. The kernel needs only its organization, which scopes every read and
 * write, and who acts; the identity module declares the rest (declaration merging), so the kernel
 * names no module. A RECIPIENT actor may call only the recipient operations, any other only the rest.
 */
export interface Viewer {
  organizationId: string;
  actor: Actor;
}

/**
 * The per-operation DataLoaders. Each module declares its own here (declaration merging, next to
 * their definitions) and registers their factories in its descriptor.
 */
export interface Loaders {}

/** What services need from the deployment, beyond the database. */
export type ServiceSettings = {
  /** Base of the links handed to recipients. */
  publicUrl: string;
  /** Server secret from which recipient links and passwords are derived and secrets are sealed. */
  secret: string;
  webhooks: WebhookSettings;
  /** The SMS vendor, when one is configured (its delivery callbacks are checked with its credentials). */
  sms: SmsSettings;
  /** DNS for checking webhook endpoints (a parameter, so tests can stage DNS answers). */
  resolveHost: (hostname: string) => Promise<string[]>;
  /** Largest file upload, in bytes. */
  maxUploadBytes: number;
  /** Declared bytes of unfinished resumable uploads held at once. */
  unfinishedUploadBytes: UnfinishedUploadBytes;
  /** Attachments, and separately documents, one item or request may hold. */
  maxFilesPerItem: number;
  /** Rows a list counts exactly for `totalCount`; past it the count is PostgreSQL's estimate. */
  exactCountLimit: number;
  /** The certificate e-signatures use, when one is configured. */
  signing: SigningSettings;
  /** Where file bytes live, as configured (resumable uploads keep their unfinished bytes there too). */
  storageConfig: StorageConfig;
  /** The service's own directory (`DATA_DIR`): files it keeps for itself, such as unfinished uploads. */
  dataDir: string;
  /** The time for rules that expire (recipient codes, sessions, lockouts). */
  clock: Clock;
  /** Days before a request's expiration that its recipients are warned (EXPIRATION_WARNING_DAYS). */
  expirationWarningDays: number;
  /** Rows this instance keeps between requests, emptied by any change to their table (API keys, settings). */
  caches: SharedCaches;
  /** Whether a signed-in user's session cookie is `Secure` (in production, or behind an https PUBLIC_URL). */
  secureCookies: boolean;
};

/**
 * Everything one operation works with. The same builder serves HTTP GraphQL, REST rows, WebSocket
 * subscriptions and event rendering, so all of them see the same rules.
 */
export type GraphQLContext = {
  /** Where the operation reads (the database, or the writing transaction it runs in). */
  db: Reader;
  viewer: Viewer;
  loaders: Loaders;
  settings: ServiceSettings;
  /** Where state changes write their events, in their own transaction. */
  events: Outbox;
  /** Runs a document's text in-process as the context's viewer, answered as GraphQL answers it (REST rows). */
  execute: Execute;
  /** Where file bytes live. */
  storage: Storage;
  log: FastifyBaseLogger;
  /** Quoted in masked errors so a log line can be found. */
  requestId: string;
};

/** Executes a document with a context: the GraphQL engine's in-process entry (mercurius's `app.graphql`). */
export type Execute = (
  source: string,
  ctx: GraphQLContext,
  variables: Record<string, unknown>,
) => Promise<{ data?: unknown; errors?: ReadonlyArray<{ message: string }> }>;

export type ContextFactoryOptions = {
  db: Reader;
  settings: ServiceSettings;
  events: Outbox;
  execute: Execute;
  storage: Storage;
  createLoaders: (db: Reader, organizationId: string, caches?: SharedCaches) => Loaders;
};

export type ContextFactory = {
  /** What the contexts carry from the deployment (for routes that build no context, such as pages). */
  settings: ServiceSettings;
  /** For a viewer, on the database or a transaction of the caller's (timed work). */
  forViewer(viewer: Viewer, options: { db?: Reader; log: FastifyBaseLogger; requestId: string }): GraphQLContext;
  /** For an authenticated HTTP request (GraphQL and REST rows). */
  forRequest(request: FastifyRequest): GraphQLContext;
};

export function createContextFactory(options: ContextFactoryOptions): ContextFactory {
  const forViewer: ContextFactory['forViewer'] = (viewer, { db = options.db, log, requestId }) => ({
    db,
    viewer,
    // Shared caches for reads on the database, not a transaction's.
    loaders: options.createLoaders(db, viewer.organizationId, db === options.db ? options.settings.caches : undefined),
    settings: options.settings,
    events: options.events,
    execute: options.execute,
    storage: options.storage,
    log,
    requestId,
  });
  return {
    settings: options.settings,
    forViewer,
    forRequest(request) {
      const viewer = request.viewer;
      if (!viewer) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
      // A call with an Idempotency-Key runs in the transaction its key is kept in (kernel/http/idempotency.ts).
      return forViewer(viewer, { db: request.transaction, log: request.log, requestId: request.id });
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Builds operation contexts (for routes that authenticate their own way, and test helpers). */
    contexts: ContextFactory;
  }
}
