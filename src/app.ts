import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config';
import { createContextBuilder } from './kernel/graphql/context';
import { registerGraphQL } from './kernel/graphql/plugin';
import { registerAuth } from './kernel/http/auth';
import { registerErrorHandling } from './kernel/http/errors';
import { registerRestRows } from './kernel/rest/engine';
import { createStorage, type Storage } from './kernel/storage';
import { validatorCompiler } from './kernel/rest/validation';
import { findViewerByApiKey } from './modules/identity/viewer';
import { createLoaders, REST_ROWS, RESOLVERS } from './modules';

export type AppOptions = {
  config: Config;
  orm: MikroORM;
  /** The process's pino logger; none in tests. */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** Where file bytes go; by default the driver the configuration names. */
  storage?: Storage;
};

declare module 'fastify' {
  interface FastifyInstance {
    orm: MikroORM;
  }
}

/** The whole service as a Fastify instance that is not listening yet (tests inject into it). */
export async function buildApp({ config, orm, loggerInstance, storage = createStorage(config.storage) }: AppOptions): Promise<FastifyInstance> {
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

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    const healthy = await orm.isConnected();
    return reply.code(healthy ? 200 : 503).send({ status: healthy ? 'ok' : 'database unavailable' });
  });

  registerAuth(app, (key) => findViewerByApiKey(orm.em.fork(), key));
  const buildContext = createContextBuilder({
    orm,
    settings: { publicUrl: config.publicUrl, secret: config.secret, maxUploadBytes: config.maxUploadBytes, maxFilesPerItem: config.maxFilesPerItem },
    storage,
    createLoaders,
  });
  await registerGraphQL(app, { resolvers: RESOLVERS, buildContext, graphiql: !config.production });
  registerRestRows(app, REST_ROWS, { buildContext });
  return app;
}
