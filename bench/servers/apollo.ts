import { ApolloServer } from '@apollo/server';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { declareReads } from '../../src/kernel/graphql/projection';
import Fastify, { type FastifyRequest } from 'fastify';
import { Db } from '../../src/kernel/db/db';
import { createOrm } from '../../src/kernel/db/orm';
import type { GraphQLContext } from '../../src/kernel/graphql/context';
import { DateTimeScalar, JSONScalar, URLScalar } from '../../src/kernel/graphql/scalars';
import { loadSdl } from '../../src/kernel/graphql/sdl';
import { registerAuth, viewerLookup } from '../../src/kernel/http/auth';
import { SharedCaches } from '../../src/kernel/db/shared-cache';
import { EventDispatcher } from '../../src/kernel/events/dispatcher';
import { findViewerByApiKey } from '../../src/modules/identity/viewer';
import { DATA_MODEL, MODULES } from '../../src/modules';
import { benchConfig } from '../lib/in-process';
import { env, serve } from './child';

// Baseline of scenario 1: the same schema, resolvers, context (entity-manager fork, viewer, DataLoaders,
// settings) and authentication hook as Gather (src/kernel/graphql/plugin.ts, src/app.ts), served by
// Apollo Server 5 through its Fastify integration, with Apollo's default plugins. The context is built
// as Gather's context builder builds it for a request, without the events outbox: that one renders
// events by running documents through mercurius, and this server only answers the read query of
// scenario 1, which emits nothing.
serve('apollo', async () => {
  const config = benchConfig();
  const orm = await createOrm({ url: env('BENCH_DB_URL'), ...DATA_MODEL, poolMax: 1 });
  const db = new Db({ url: env('BENCH_DB_URL'), poolMax: config.dbPoolMax, metadata: orm.getMetadata() });
  const schema = makeExecutableSchema<GraphQLContext>({
    typeDefs: loadSdl(),
    resolvers: [{ DateTime: DateTimeScalar, URL: URLScalar, JSON: JSONScalar }, ...MODULES.resolvers],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  // The resolvers' declarations of what they read, as Gather's plugin takes them: the same loaders
  // then read the same columns.
  declareReads(schema, MODULES.resolvers as Record<string, unknown>[]);
  const app = Fastify({ logger: false, bodyLimit: config.bodyLimit });
  // The same onRequest hook as Gather: the API key resolved to the viewer by one SQL statement, or from
  // the same cache, emptied by the same notifications (a listener of its own, handing out no events).
  const dispatcher = new EventDispatcher(env('BENCH_DB_URL'), app.log, () => false);
  const caches = new SharedCaches(() => dispatcher.listening, config.sharedCacheSeconds);
  dispatcher.on('cacheChanged', (table) => caches.changed(table));
  registerAuth(
    app,
    viewerLookup(async ({ kind, value }) => (kind === 'key' ? findViewerByApiKey(db, value, caches) : null)),
    { publicUrl: config.publicUrl },
  );
  const settings = { publicUrl: config.publicUrl, secret: config.secret };
  const buildContext = (request: FastifyRequest): GraphQLContext => {
    // registerAuth answered 401 already when there is no viewer.
    return {
      db,
      viewer: request.viewer!,
      loaders: MODULES.createLoaders(db, request.viewer!.organizationId),
      settings,
      log: request.log,
      requestId: request.id,
    } as unknown as GraphQLContext;
  };
  const apollo = new ApolloServer<GraphQLContext>({ schema, plugins: [fastifyApolloDrainPlugin(app)] });
  await apollo.start();
  await dispatcher.start();
  await app.register(fastifyApollo(apollo), { path: '/graphql', context: async (request) => buildContext(request) });
  return {
    app,
    async close() {
      await app.close();
      await apollo.stop();
      await dispatcher.stop();
      await db.close();
      await orm.close();
    },
  };
});
