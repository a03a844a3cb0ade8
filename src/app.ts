import type { LookupFunction } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config';
import { EventDispatcher } from './kernel/events/dispatcher';
import { Outbox } from './kernel/events/outbox';
import { createContextFactory, type Execute, type ServiceSettings } from './kernel/graphql/context';
import { findSession, isSessionToken, recipientViewer } from './modules/portal/portal.access';
import { clientOf } from './modules/portal/portal.routes';
import { registerGraphQL } from './kernel/graphql/plugin';
import { registerSubscriptionServer, SubscriptionHub } from './kernel/graphql/subscriptions';
import { registerAuth } from './kernel/http/auth';
import { registerErrorHandling } from './kernel/http/errors';
import { registerOpenApi } from './kernel/http/openapi';
import { registerRestRows } from './kernel/rest/engine';
import { createStorage, type Storage } from './kernel/storage';
import { validatorCompiler } from './kernel/rest/validation';
import { subjectLoader } from './kernel/graphql/events';
import { MODULES } from './modules';
import { TOPICS } from './modules/events/event.topics';
import { findViewerByApiKey, isAdmin } from './modules/identity/viewer';
import { DeliveryWorker } from './modules/webhooks/webhook.delivery';
import { systemClock, type Clock } from './kernel/clock';
import { systemResolver, type HostResolver } from './modules/webhooks/webhook.endpoint';
import { createMailer, logSmsProvider, type SmsProvider } from './modules/notifications/notification.channels';
import { NotificationWorker } from './modules/notifications/notification.worker';
import { ScheduleWorker } from './modules/schedule/schedule.worker';

export type AppOptions = {
  config: Config;
  orm: MikroORM;
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
    /** Live subscriptions of this instance (their count is what tests and benchmarks wait on). */
    subscriptions: SubscriptionHub;
    /** This instance's webhook sender. */
    webhookWorker: DeliveryWorker;
    /** This instance's notification sender. */
    notificationWorker: NotificationWorker;
    /** This instance's runner of timed jobs (reminders, expiry, auto-close, escalations). */
    scheduleWorker: ScheduleWorker;
  }
}

/** The whole service as a Fastify instance that is not listening yet (tests inject into it). */
export async function buildApp({
  config,
  orm,
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
  });
  app.decorate('orm', orm);
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app, { bodyLimit: config.bodyLimit });
  await registerOpenApi(app, { publicUrl: config.publicUrl });

  const Health = Type.Object({ status: Type.String() });
  const health = (summary: string, response: Record<number, typeof Health>) => ({ config: { public: true }, schema: { tags: ['Health'], summary, response } });
  app.get('/healthz', health('The process answers', { 200: Health }), async () => ({ status: 'ok' }));
  app.get('/readyz', health('The database is reachable', { 200: Health, 503: Health }), async (_request, reply) => {
    const healthy = await orm.isConnected();
    return reply.code(healthy ? 200 : 503).send({ status: healthy ? 'ok' : 'database unavailable' });
  });

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
  };
  const resolveViewer = (key: string) => findViewerByApiKey(orm.em.fork(), key);
  // A recipient's session token opens its GraphQL operations (the actor guard keeps it to them).
  registerAuth(app, async (key, request) => {
    if (!isSessionToken(key)) return resolveViewer(key);
    const session = await findSession(orm.em.fork(), key, settings.clock.now());
    return session && recipientViewer(session, clientOf(request));
  });
  const outbox = new Outbox(MODULES.renderers, MODULES.emitHooks);

  const contexts = createContextFactory({
    orm,
    settings,
    events: outbox,
    // Event renders run the REST rows' documents in-process, inside the writing transaction.
    execute: (source, ctx, variables) => app.graphql(source, ctx as never, variables) as ReturnType<Execute>,
    storage,
    createLoaders: MODULES.createLoaders,
  });
  app.decorate('contexts', contexts);
  const buildContext = (request: FastifyRequest) => contexts.forRequest(request);
  await registerGraphQL(app, { resolvers: MODULES.resolvers, buildContext, graphiql: !config.production });
  registerRestRows(app, MODULES.restRows, { buildContext });
  for (const routes of MODULES.routes) await app.register(routes);

  // Committed events, whichever instance wrote them, reach this instance's subscribers.
  const hub = new SubscriptionHub(
    app.graphql.schema,
    contexts,
    { topics: TOPICS, loadSubject: subjectLoader(MODULES.subjects), audienceOf: (viewer) => (isAdmin(viewer) ? 'admin' : viewer.userId) },
    app.log,
  );
  const dispatcher = new EventDispatcher(orm.config.get('clientUrl')!, app.log, () => hub.active);
  app.decorate('subscriptions', hub);
  const worker = new DeliveryWorker({ orm, settings: config.webhooks, serverSecret: config.secret, log: app.log, clock, lookup: deliveryLookup });
  app.decorate('webhookWorker', worker);
  dispatcher.on('event', (event) => void hub.publish(event));
  const notifier = new NotificationWorker({
    orm,
    mailer: createMailer(config.mail),
    sms: sms ?? logSmsProvider(app.log),
    serverSecret: config.secret,
    publicUrl: config.publicUrl,
    log: app.log,
    clock,
  });
  app.decorate('notificationWorker', notifier);
  const scheduler = new ScheduleWorker({ orm, contexts, settings: { expirationWarningDays: config.expirationWarningDays }, log: app.log, clock: settings.clock });
  app.decorate('scheduleWorker', scheduler);
  dispatcher.on('committed', () => {
    worker.wake();
    notifier.wake();
  });
  registerSubscriptionServer(app, app.graphql.schema, { hub, contexts, resolveViewer });
  app.addHook('onReady', async () => {
    await dispatcher.start();
    if (deliverWebhooks) worker.start();
    if (sendNotifications) notifier.start();
    if (runJobs) scheduler.start();
  });
  app.addHook('onClose', async () => {
    await worker.stop();
    await notifier.stop();
    await scheduler.stop();
    await dispatcher.stop();
  });
  return app;
}
