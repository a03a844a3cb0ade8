import { buildApp } from '../../src/app';
import { createOrm } from '../../src/kernel/db/orm';
import { DATA_MODEL } from '../../src/modules';
import { benchConfig } from '../lib/in-process';
import { env, serve } from './child';

// Gather itself, as src/main.ts builds it (buildApp), without request logging, on the bench database.
// BENCH_DELIVER_WEBHOOKS=0 starts it with its job queue stopped (the webhook scenario queues a backlog
// first, then starts the queue, which consumes the events and sends their deliveries, with the
// `webhooks-start` command).
serve('ours', async () => {
  const config = benchConfig();
  const orm = await createOrm({ url: env('BENCH_DB_URL'), ...DATA_MODEL, poolMax: config.dbPoolMax });
  const app = await buildApp({ config, orm, runJobs: process.env.BENCH_DELIVER_WEBHOOKS !== '0' });
  return {
    app,
    async close() {
      await app.close();
      await orm.close();
    },
    commands: {
      /** Live subscriptions of this instance (the fan-out scenario waits for all of them). */
      subscribers: () => app.subscriptions.subscriberCount,
      'webhooks-start': () => app.jobs.start(),
    },
  };
});
