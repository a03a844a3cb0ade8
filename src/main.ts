import { buildApp } from './app';
import { ConfigError, loadConfig } from './config/config';
import type { FastifyInstance } from 'fastify';
import { createLogger } from './kernel/logger';
import { serviceUrls } from './kernel/http/landing';
import { openDatabase, type Database } from './kernel/db/database';
import { DATA_MODEL } from './modules';
import { bootstrapFirstAdmin } from './modules/identity/identity.service';
import { checkSigningSettings } from './modules/signing/signing.certificate';

// Process entry: configuration, database, first admin, then listen. SIGTERM or Ctrl-C stops accepting,
// finishes in-flight requests, closes WebSockets with 1001, lets the workers finish their batch, closes
// the pool and stops the embedded PostgreSQL last (it runs in its own process group, so Ctrl-C does not
// reach it directly).
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
    checkSigningSettings(config.signing);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(
        `${err.message}\nFix the environment variables above (see the configuration table in docs/operations.md) and start again.\n`,
      );
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);

  // Ctrl-C reaches this process twice (from the terminal and relayed by npm), so repeated signals
  // are ignored rather than taken as "exit now"; the timeout bounds a shutdown that hangs. Installed
  // before the database opens: the embedded server is stopped by us alone, even when stopped mid-start.
  let closing = false;
  let app: FastifyInstance | undefined;
  const shutdown = async (reason: string, code: number) => {
    if (closing) return;
    closing = true;
    logger.info(`${reason}: finishing in-flight requests`);
    setTimeout(() => {
      logger.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    try {
      await app?.close();
    } finally {
      await (await opening?.catch(() => undefined))?.close();
    }
    logger.info('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT received', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM received', 0));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    void shutdown('uncaught exception', 1);
  });

  logger.info(config.databaseUrl ? 'connecting to PostgreSQL' : `opening the embedded PostgreSQL in ${config.dataDir}`);
  const opening = openDatabase(config, DATA_MODEL, {
    log: (line) => logger.debug({ postgres: line }),
    progress: (step) => logger.info(step),
  });
  let database: Database;
  try {
    database = await opening;
  } catch (err) {
    if (closing) return;
    throw err;
  }
  if (closing) return;
  logger.info({ migrations: database.migrations }, `database ready: ${database.description}`);
  try {
    const admin = await bootstrapFirstAdmin(database.db, { apiKey: config.adminApiKey });
    if (admin) {
      logger.info(
        { organizationId: admin.organizationId, userId: admin.userId },
        'fresh database: created the default organization and its admin',
      );
      if (!config.adminApiKey) {
        // Shown once: only its hash is stored.
        process.stdout.write(`\n  First admin API key (shown once, store it now): ${admin.apiKey}\n\n`);
      }
    }
    if (closing) return;
    app = await buildApp({ config, orm: database.orm, db: database.db, loggerInstance: logger });
    if (closing) return;
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // A start that fails after the database opened (PORT taken) stops the embedded server it started.
    await app?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const urls = serviceUrls({ graphiql: config.graphql.graphiql, metrics: Boolean(config.metricsToken) });
  for (const { path, what } of urls) logger.info(`${`${base}${path}`.padEnd(base.length + 16)} ${what}`);
  logger.info(`Gather is listening on ${base}/ (recipient links use ${config.publicUrl})`);
}

main().catch((err) => {
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    const { address, port } = err as { address?: string; port?: number };
    process.stderr.write(
      `Gather failed to start: port ${port} on ${address} is already in use (another Gather, or another server).\n` +
        `Stop that process, or start on another port: PORT=${(port ?? 3000) + 1} npm start\n`,
    );
  } else {
    process.stderr.write(
      `Gather failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
});
