// First, so V8's settings apply while the rest loads (kernel/runtime.ts).
import './kernel/runtime';
import type { LookupFunction } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config';
import { Db } from './kernel/db/db';
import { SharedCaches } from './kernel/db/shared-cache';
import { EventDispatcher } from './kernel/events/dispatcher';
import { Outbox } from './kernel/events/outbox';
import { createContextFactory, type ServiceSettings } from './kernel/graphql/context';
import { findLink, findSession, isSessionToken, recipientViewer } from './modules/portal/portal.access';
import { clientOf } from './modules/portal/portal.routes';
import { errorFormat } from './kernel/graphql/format';
import { registerGraphQL } from './kernel/graphql/plugin';
import { registerSubscriptionServer, SubscriptionHub } from './kernel/graphql/subscriptions';
import { registerAuth, viewerLookup } from './kernel/http/auth';
import { registerErrorHandling } from './kernel/http/errors';
import { registerHealth } from './kernel/http/health';
import { registerLanding, serviceUrls } from './kernel/http/landing';
import { registerOpenApi } from './kernel/http/openapi';
import { EDGE_SWEEP_INTERVAL_MS, EdgeStore } from './kernel/http/edge-store';
import { registerIdempotency } from './kernel/http/idempotency';
import { registerRateLimits } from './kernel/http/rate-limit';
import { observeRequests, ServiceLogController } from './kernel/http/observe';
import { createMetrics, registerMetricsRoute, type Metrics } from './kernel/metrics/metrics';
import { registerRestRows } from './kernel/rest/engine';
import { createStorage, type Storage } from './kernel/storage';
import { validatorCompiler } from './kernel/rest/validation';
import { subjectLoader } from './kernel/graphql/events';
import { MODULES } from './modules';
import { SUBSCRIPTION_ONLY_TOPICS, TOPICS } from './modules/events/event.topics';
import { findViewerByApiKey, isAdmin } from './modules/identity/viewer';
import { attemptCounts, deliveryAgents, webhookTasks, type AttemptCounts } from './modules/webhooks/webhook.delivery';
import { systemClock, type Clock } from './kernel/clock';
import { eventTask } from './kernel/events/consumers';
import { JobQueue } from './kernel/jobs/queue';
import { systemResolver, type HostResolver } from './modules/webhooks/webhook.endpoint';
import { createMailer, logSmsProvider, type SmsProvider } from './modules/notifications/notification.channels';
import { notificationTasks } from './modules/notifications/notification.worker';
import { twilioSmsProvider } from './modules/notifications/notification.twilio';
import { scheduleTasks } from './modules/schedule/schedule.tasks';
import { bulkSendTasks } from './modules/bulk-sends/bulk-send.task';
import { findUserSession, sessionTasks } from './modules/sessions/session.service';

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
  /**
   * Whether this instance runs its jobs by itself (webhook deliveries, notifications, timed work, event consumers):
   * tests drive them with `jobs.runDue()`.
   */
  runJobs?: boolean;
  /** Where SMS go; by default Twilio when configured, else the log (and the notification table). */
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
    /** Webhook attempts this instance's jobs made, by outcome (/metrics). */
    webhookAttempts: AttemptCounts;
    /** This instance's job queue (tests run what is due with `jobs.runDue()`). */
    jobs: JobQueue;
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
  storage: givenStorage,
  clock,
  resolveHost = systemResolver,
  deliveryLookup,
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
    logController: new ServiceLogController(),
  });
  const storage = givenStorage ?? createStorage(config.storage, app.log);
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
  await registerOpenApi(app);

  // Rows every request reads, kept while this instance hears their tables' changes (its LISTEN connection).
  const caches = new SharedCaches(() => dispatcher.listening, config.sharedCacheSeconds);
  const settings: ServiceSettings = {
    publicUrl: config.publicUrl,
    secret: config.secret,
    webhooks: config.webhooks,
    sms: config.sms,
    resolveHost,
    maxUploadBytes: config.maxUploadBytes,
    unfinishedUploadBytes: config.unfinishedUploadBytes,
    maxFilesPerItem: config.maxFilesPerItem,
    exactCountLimit: config.exactCountLimit,
    signing: config.signing,
    storageConfig: config.storage,
    dataDir: config.dataDir,
    clock: clock ?? systemClock,
    expirationWarningDays: config.expirationWarningDays,
    caches,
    secureCookies: config.production || config.publicUrl.startsWith('https:'),
  };
  const edgeStore = new EdgeStore(db);
  app.decorate('edgeStore', edgeStore);
  const resolveViewer = (key: string) => findViewerByApiKey(db, key, caches);
  // A signed-in user's session cookie stands for its user as an API key does.
  const resolveSession = async (token: string) =>
    (await findUserSession(db, token, settings.clock.now()))?.viewer ?? null;
  // A recipient's session token opens its GraphQL operations (the actor guard keeps it to them).
  const viewerOf = viewerLookup(async ({ kind, value }, request) => {
    if (kind === 'session') return resolveSession(value);
    if (!isSessionToken(value)) return resolveViewer(value);
    const session = await findSession(db, value, settings.clock.now());
    return session && recipientViewer(session, clientOf(request));
  });
  // Before authentication answers, so that a credential naming no one counts against its address (the
  // lookup is authentication's own, made once; a known key's caller is cached).
  const rateLimits = await registerRateLimits(app, edgeStore, config.rateLimits, {
    viewerOf,
    linkExists: async (token) => (await findLink(db, token)) !== null,
  });
  registerAuth(app, viewerOf, { publicUrl: config.publicUrl });
  registerIdempotency(app, db);
  const outbox = new Outbox(MODULES.views, settings, MODULES.consumers);

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
    countOperations: rateLimits.countMore,
  });
  registerRestRows(app, MODULES.restRows, { buildContext });
  for (const routes of MODULES.routes) await app.register(routes);

  // Over WebSocket, errors leave as over HTTP (plugin.ts).
  const socketErrors = errorFormat({ suggestions: config.graphql.introspection });
  // Committed events, whichever instance wrote them, reach this instance's subscribers.
  const hub = new SubscriptionHub(
    app.graphql.schema,
    contexts,
    {
      topics: [...TOPICS, ...SUBSCRIPTION_ONLY_TOPICS],
      loadSubject: subjectLoader(MODULES.subjects),
      audienceOf: (viewer) => (isAdmin(viewer) ? 'admin' : viewer.userId),
      format: socketErrors,
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
  dispatcher.on('event', (event) => void hub.publish(event));
  // What the tasks send through, closed once the queue stopped.
  const agents = deliveryAgents(config.webhooks.allowPrivate);
  const mailer = createMailer(config.mail);
  const webhookAttempts = attemptCounts();
  app.decorate('webhookAttempts', webhookAttempts);
  // The job queue: every effect that follows a commit (job queue tasks).
  const jobs = new JobQueue({
    url: orm.config.get('clientUrl')!,
    tasks: {
      event: eventTask(db, MODULES.consumers, { settings, contexts, log: app.log }),
      ...scheduleTasks({ db, contexts, log: app.log }),
      ...bulkSendTasks({ db, contexts, events: outbox, log: app.log }),
      ...webhookTasks({
        db,
        settings: config.webhooks,
        serverSecret: config.secret,
        clock: settings.clock,
        lookup: deliveryLookup,
        agents,
        attempts: webhookAttempts,
      }),
      ...sessionTasks({ db, settings }),
      ...notificationTasks({
        db,
        mailer,
        sms:
          sms ?? (config.sms.twilio ? twilioSmsProvider(config.sms.twilio, config.publicUrl) : logSmsProvider(app.log)),
        serverSecret: config.secret,
        publicUrl: config.publicUrl,
        clock: settings.clock,
      }),
    },
    concurrency: config.jobConcurrency,
    pollMs: config.jobPollMs,
    clock: settings.clock,
    log: app.log,
  });
  app.decorate('jobs', jobs);
  const sockets = registerSubscriptionServer(app, app.graphql.schema, {
    hub,
    contexts,
    resolveViewer,
    resolveSession,
    publicUrl: config.publicUrl,
    queryLimits: config.graphql,
    rateLimits,
    format: socketErrors,
  });
  metrics = createMetrics({
    app,
    db,
    sources: MODULES.metrics,
    sockets: () => ({ connections: sockets.connections(), subscriptions: hub.subscriberCount }),
  });
  registerMetricsRoute(app, metrics, config.metricsToken);
  registerLanding(app, serviceUrls({ graphiql: config.graphql.graphiql, metrics: Boolean(config.metricsToken) }));
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
    if (runJobs) await jobs.start();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await jobs.stop();
    await agents.destroy();
    mailer.close();
    await dispatcher.stop();
    await Promise.all(MODULES.stops.map((stop) => stop()));
  });
  return app;
}
