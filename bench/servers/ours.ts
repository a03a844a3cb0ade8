import { buildApp } from '../../src/app';
import { createOrm } from '../../src/kernel/db/orm';
import { ENTITIES } from '../../src/modules/entities';
import { benchConfig } from '../lib/in-process';
import { env, serve } from './child';

// Gather itself, as src/main.ts builds it (buildApp), without request logging, on the bench database.
serve('ours', async () => {
  const config = benchConfig();
  const orm = await createOrm({ url: env('BENCH_DB_URL'), entities: ENTITIES, poolMax: config.dbPoolMax });
  const app = await buildApp({ config, orm });
  return {
    app,
    async close() {
      await app.close();
      await orm.close();
    },
  };
});
