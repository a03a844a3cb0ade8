import pino from 'pino';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config/config';
import { openDatabase } from './kernel/db/database';
import { DATA_MODEL } from './modules';
import { bootstrapFirstAdmin } from './modules/identity/identity.service';
import { checkSigningSettings } from './modules/signing/signing.certificate';

// Process entry: configuration, database, first admin, then listen; Ctrl-C finishes in-flight
// requests, closes the pool and stops the embedded PostgreSQL.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
    checkSigningSettings(config.signing);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nFix the environment variables above (see the README's configuration table) and start again.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = pino({
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], censor: '[redacted]' },
  });

  logger.info(config.databaseUrl ? 'connecting to PostgreSQL' : 'starting embedded PostgreSQL');
  const database = await openDatabase(config, DATA_MODEL, (line) => logger.debug({ postgres: line }));
  logger.info({ migrations: database.migrations }, `database ready: ${database.description}`);

  const admin = await bootstrapFirstAdmin(database.orm.em.fork(), { apiKey: config.adminApiKey });
  if (admin) {
    logger.info({ organizationId: admin.organizationId, userId: admin.userId }, 'fresh database: created the default organization and its admin');
    if (!config.adminApiKey) {
      // Shown once: only its hash is stored.
      process.stdout.write(`\n  First admin API key (shown once, store it now): ${admin.apiKey}\n\n`);
    }
  }

  const app = await buildApp({ config, orm: database.orm, loggerInstance: logger });
  // Ctrl-C reaches this process twice (from the terminal and relayed by npm), so repeated signals
  // are ignored rather than taken as "exit now"; the timeout bounds a shutdown that hangs.
  let closing = false;
  const shutdown = async (reason: string, code: number) => {
    if (closing) return;
    closing = true;
    logger.info(`${reason}: finishing in-flight requests`);
    setTimeout(() => {
      logger.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    await app.close();
    await database.close();
    logger.info('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT received', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM received', 0));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    void shutdown('uncaught exception', 1);
  });

  await app.listen({ port: config.port, host: config.host });
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${app.server.address() && typeof app.server.address() === 'object' ? (app.server.address() as { port: number }).port : config.port}`;
  logger.info(`GraphQL:  ${base}/graphql`);
  if (config.graphql.graphiql) logger.info(`GraphiQL: ${base}/graphiql`);
  logger.info(`REST:     ${base}/ (e.g. ${base}/whoami); recipient links use ${config.publicUrl}`);
}

main().catch((err) => {
  process.stderr.write(`Gather failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
