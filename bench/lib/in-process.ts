import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config/config';
import { Db } from '../../src/kernel/db/db';
import { createOrm } from '../../src/kernel/db/orm';
import { DATA_MODEL } from '../../src/modules';

export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-01';
export const BENCH_PUBLIC_URL = 'https://gather.bench.example';
/** DATA_DIR of every benchmark process: local file storage under `files/` (the file scenario). */
export const BENCH_DATA_DIR = '/tmp/gather-bench';

/**
 * The service's configuration for every benchmark process: production mode, no logs, a fixed secret,
 * private webhook endpoints allowed (the receiver is on loopback), everything else at the defaults of
 * the service's own environment schema (loadConfig), so settings the service adds later come with
 * their defaults here too.
 */
export function benchConfig(): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: BENCH_DATA_DIR,
    PUBLIC_URL: BENCH_PUBLIC_URL,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    GATHER_SECRET: BENCH_SECRET,
    DB_POOL_MAX: process.env.BENCH_POOL_MAX ?? '10',
    // The webhook scenario's receiver listens on loopback (production refuses private endpoints).
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // One API key makes thousands of calls a second here, far past any per-key limit a deployment sets.
    RATE_LIMIT_API_KEY: '0',
    RATE_LIMIT_LINK: '0',
    RATE_LIMIT_ADDRESS: '0',
    ...(process.env.BENCH_JOB_CONCURRENCY ? { JOB_CONCURRENCY: process.env.BENCH_JOB_CONCURRENCY } : {}),
  });
}

export type InProcessApp = { app: FastifyInstance; orm: MikroORM; statements: string[]; close(): Promise<void> };

/** The whole service in this process, with every SQL statement it sends recorded (scenario 6). */
export async function inProcessApp(url: string): Promise<InProcessApp> {
  const statements: string[] = [];
  const orm = await createOrm({ url, ...DATA_MODEL, poolMax: 1 });
  const db = new Db({ url, poolMax: 5, metadata: orm.getMetadata(), onStatement: (sql) => statements.push(sql) });
  // No webhook, notification or job worker: their polling, woken by the other processes' events,
  // would add to the count.
  const app = await buildApp({
    config: benchConfig(),
    orm,
    db,
    runJobs: false,
  });
  await app.ready();
  return {
    app,
    orm,
    statements,
    async close() {
      await app.close();
      await db.close();
      await orm.close();
    },
  };
}
