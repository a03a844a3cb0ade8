// First, so V8's settings apply while the rest loads (kernel/runtime.ts).
import './kernel/runtime';
import type { LookupFunction } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config';
import { Db } from './kernel/db/db';
import { SharedCaches } from './kernel/db/shared-cache';
import { EventDispatcher } from './kernel/events/dispatcher';
import { Outbox } from './kernel/events/outbox';
import { createContextFactory, type ServiceSettings } from './kernel/graphql/context';
import { findSession, isSessionToken, recipientViewer } from './modules/portal/portal.access';
import { clientOf } from './modules/portal/portal.routes';
import { registerGraphQL } from './kernel/graphql/plugin';
import { registerSubscriptionServer, SubscriptionHub } from './kernel/graphql/subscriptions';
import { registerAuth } from './kernel/http/auth';
import { registerErrorHandling } from './kernel/http/errors';
import { registerHealth } from './kernel/http/health';
import { registerOpenApi } from './kernel/http/openapi';
import { EDGE_SWEEP_INTERVAL_MS, EdgeStore } from './kernel/http/edge-store';
import { registerIdempotency } from './kernel/http/idempotency';
import { registerRateLimits } from './kernel/http/rate-limit';
import { observeRequests } from './kernel/http/observe';
import { createMetrics, registerMetricsRoute, type Metrics } from './kernel/metrics/metrics';
import { registerRestRows } from './kernel/rest/engine';
import { createStorage, type Storage } from './kernel/storage';
import { validatorCompiler } from './kernel/rest/validation';
import { subjectLoader } from './kernel/graphql/events';
import { MODULES } from './modules';
import { TOPICS } from './modules/events/event.topics';
import { findViewerByApiKey, isAdmin } from './modules/identity/viewer';
import { DeliveryWorker } from './modules/webhooks/webhook.delivery';
import { WEBHOOK_WAKE } from './modules/webhooks/webhook.service';
import { NOTIFICATION_WAKE } from './modules/notifications/notification.service';
import { systemClock, type Clock } from './kernel/clock';
import { systemResolver, type HostResolver } from './modules/webhooks/webhook.endpoint';
import { createMailer, logSmsProvider, type SmsProvider } from './modules/notifications/notification.channels';
import { NotificationWorker } from './modules/notifications/notification.worker';
import { ScheduleWorker } from './modules/schedule/schedule.worker';

export type AppOptions = {
  config: Config;
  /** Migrations and the entities' metadata (readiness checks the migrations). */
  orm: MikroORM;
  /** Every read and write; without one, the app opens its own on the ORM's database and closes it with itself. */
  db?: Db;
  /** The process's pino logger; none in tests. */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** Time and DNS as the webhook machinery sees them; tests stage them. */
  clock?: Clock;
  resolveHost?: HostResolver;
  deliveryLookup?: LookupFunction;
  /** Whether this instance sends webhook deliveries by itself (tests drive the worker by hand). */
  deliverWebhooks?: boolean;
  /** Whether this instance sends notifications by itself (tests drive the worker by hand). */
  sendNotifications?: boolean;
  /** Whether this instance runs due timed jobs by itself (tests drive the worker by hand). */
  runJobs?: boolean;
  /** Where SMS go; by default the log (and the notification table). */
  sms?: SmsProvider;
  /** Where file bytes go; by default the driver the configuration names. */
  storage?: Storage;
};

declare module 'fastify' {
  interface FastifyInstance {
    orm: MikroORM;
    db: Db;
    /** Live subscriptions of this instance (their count is what tests and benchmarks wait on). */
    subscriptions: SubscriptionHub;
    /** This instance's LISTEN connection, handing committed events out. */
    eventDispatcher: EventDispatcher;
    /** This instance's webhook sender. */
    webhookWorker: DeliveryWorker;
    /** This instance's notification sender. */
    notificationWorker: NotificationWorker;
    /** This instance's runner of timed jobs (reminders, expiry, auto-close, escalations). */
    scheduleWorker: ScheduleWorker;
    /** Idempotency keys and rate-limit counters, shared with the other instances on the database. */
    edgeStore: EdgeStore;
  }
}

/** The whole service as a Fastify instance that is not listening yet (tests inject into it). */
export async function buildApp({
  config,
  orm,
  db: given,
  loggerInstance,
  storage = createStorage(config.storage),
  clock,
  resolveHost = systemResolver,
  deliveryLookup,
  deliverWebhooks = true,
  sendNotifications = true,
  runJobs = true,
  sms,
}: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: false }),
    bodyLimit: config.bodyLimit,
    // Rows' JSON Schemas name their fields; Fastify's own 400 would not say which, ours says all.
    ajv: { customOptions: { allErrors: true } },
    routerOptions: { ignoreTrailingSlash: true },
    requestIdHeader: 'x-request-id',
    // Behind a load balancer the client's address (for its rate limit) is in X-Forwarded-For.
    trustProxy: config.trustProxy,
    // Its lines hold the URL (a recipient link's token); observeRequests logs one line without it.
    logController: new LogController({ disableRequestLogging: true }),
  });
  const db =
    given ?? new Db({ url: orm.config.get('clientUrl')!, poolMax: config.dbPoolMax, metadata: orm.getMetadata() });
  if (!given) app.addHook('onClose', () => db.close());
  app.decorate('orm', orm);
  app.decorate('db', db);
  // Shutting down, a response in flight closes its connection: kept alive, the idle connection would
  // hold the server's close until the keep-alive timeout (Fastify closes only those idle when it starts).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app, { bodyLimit: config.bodyLimit });
  // Before every route, so each answer is counted; the metrics exist once the app's parts do.
  let metrics: Metrics | undefined;
  observeRequests(app, (observed) => metrics?.observe(observed));
  await registerOpenApi(app, { publicUrl: config.publicUrl });

  // Rows every request reads, kept while this instance hears their tables' changes (its LISTEN connection).
  const caches = new SharedCaches(() => dispatcher.listening, config.sharedCacheSeconds);
  const settings: ServiceSettings = {
    publicUrl: config.publicUrl,
    secret: config.secret,
    webhooks: config.webhooks,
    resolveHost,
    maxUploadBytes: config.maxUploadBytes,
    maxFilesPerItem: config.maxFilesPerItem,
    exactCountLimit: config.exactCountLimit,
    signing: config.signing,
    dataDir: config.dataDir,
    clock: clock ?? systemClock,
    caches,
  };
  const edgeStore = new EdgeStore(db);
  app.decorate('edgeStore', edgeStore);
  // Before authentication, so that a caller over its limit costs no key lookup.
  await registerRateLimits(app, edgeStore, config.rateLimits);
  const resolveViewer = (key: string) => findViewerByApiKey(db, key, caches);
  // A recipient's session token opens its GraphQL operations (the actor guard keeps it to them).
  registerAuth(app, async (key, request) => {
    if (!isSessionToken(key)) return resolveViewer(key);
    const session = await findSession(db, key, settings.clock.now());
    return session && recipientViewer(session, clientOf(request));
  });
  registerIdempotency(app, edgeStore);
  const outbox = new Outbox(MODULES.views, settings, MODULES.emitHooks);

  const contexts = createContextFactory({
    db,
    settings,
    events: outbox,
    // Event renders run the REST rows' documents in-process, inside the writing transaction.
    execute: (source, ctx, variables) => executeInProcess(source, ctx, variables),
    storage,
    createLoaders: MODULES.createLoaders,
  });
  app.decorate('contexts', contexts);
  const buildContext = (request: FastifyRequest) => contexts.forRequest(request);
  const executeInProcess = await registerGraphQL(app, {
    resolvers: MODULES.resolvers,
    buildContext,
    ...config.graphql,
  });
  registerRestRows(app, MODULES.restRows, { buildContext });
  for (const routes of MODULES.routes) await app.register(routes);

  // Committed events, whichever instance wrote them, reach this instance's subscribers.
  const hub = new SubscriptionHub(
    app.graphql.schema,
    contexts,
    {
      topics: TOPICS,
      loadSubject: subjectLoader(MODULES.subjects),
      audienceOf: (viewer) => (isAdmin(viewer) ? 'admin' : viewer.userId),
    },
    app.log,
  );
  const dispatcher = new EventDispatcher(
    orm.config.get('clientUrl')!,
    app.log,
    () => hub.active,
    (id) => outbox.take(id),
  );
  registerHealth(app, { orm, db, listening: () => dispatcher.listening });
  app.decorate('eventDispatcher', dispatcher);
  dispatcher.on('cacheChanged', (table) => caches.changed(table));
  app.decorate('subscriptions', hub);
  const worker = new DeliveryWorker({
    db,
    settings: config.webhooks,
    serverSecret: config.secret,
    log: app.log,
    clock,
    lookup: deliveryLookup,
  });
  app.decorate('webhookWorker', worker);
  dispatcher.on('event', (event) => void hub.publish(event));
  const notifier = new NotificationWorker({
    db,
    mailer: createMailer(config.mail),
    sms: sms ?? logSmsProvider(app.log),
    serverSecret: config.secret,
    publicUrl: config.publicUrl,
    log: app.log,
    clock,
  });
  app.decorate('notificationWorker', notifier);
  const scheduler = new ScheduleWorker({
    db,
    contexts,
    settings: { expirationWarningDays: config.expirationWarningDays, leaseMs: config.jobLeaseMs },
    log: app.log,
    clock: settings.clock,
  });
  app.decorate('scheduleWorker', scheduler);
  dispatcher.on('committed', (wakes) => {
    // Only what queued work wakes a worker (a replay waits for the poll): no claim for other events.
    if (wakes.includes(WEBHOOK_WAKE)) worker.wake();
    if (wakes.includes(NOTIFICATION_WAKE)) notifier.wake();
  });
  const sockets = registerSubscriptionServer(app, app.graphql.schema, {
    hub,
    contexts,
    resolveViewer,
    introspection: config.graphql.introspection,
  });
  metrics = createMetrics({
    app,
    db,
    sources: MODULES.metrics,
    sockets: () => ({ connections: sockets.connections(), subscriptions: hub.subscriberCount }),
  });
  registerMetricsRoute(app, metrics, config.metricsToken);
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (runJobs) {
      sweeper = setInterval(
        () =>
          edgeStore
            .sweep()
            .catch((err) => app.log.error({ err }, 'sweeping idempotency keys and rate-limit counters failed')),
        EDGE_SWEEP_INTERVAL_MS,
      );
      sweeper.unref();
    }
    await dispatcher.start();
    if (deliverWebhooks) worker.start();
    if (sendNotifications) notifier.start();
    if (runJobs) scheduler.start();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await worker.stop();
    await notifier.stop();
    await scheduler.stop();
    await dispatcher.stop();
  });
  return app;
}
