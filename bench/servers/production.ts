import { join } from 'node:path';
import { BENCH_DATA_DIR, BENCH_PUBLIC_URL, BENCH_SECRET } from '../lib/in-process';
import { ROOT } from '../lib/servers';
import { env, serve } from './child';

// Gather as a deployment runs it, limits on: production mode and every other setting at its default
// (the rate limits included), unlike `ours`, whose rate limits are off. The code is that of BENCH_ROOT
// (another checkout, e.g. a worktree of main, on the same migrations), or this one's: attacks on the
// limits measured before and after a change, in the same conditions (bench/batch-attack.ts). BENCH_DATA_DIR: another
// DATA_DIR than the bench's (bench/tus-attack.ts measures what one server leaves there).
serve('production', async () => {
  const root = process.env.BENCH_ROOT ?? ROOT;
  const { buildApp } = await import(join(root, 'src/app.ts'));
  const { loadConfig } = await import(join(root, 'src/config/config.ts'));
  const { createOrm } = await import(join(root, 'src/kernel/db/orm.ts'));
  const { DATA_MODEL } = await import(join(root, 'src/modules/index.ts'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: process.env.BENCH_DATA_DIR ?? BENCH_DATA_DIR,
    PUBLIC_URL: BENCH_PUBLIC_URL,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    GATHER_SECRET: BENCH_SECRET,
  });
  const orm = await createOrm({ url: env('BENCH_DB_URL'), ...DATA_MODEL, poolMax: config.dbPoolMax });
  const app = await buildApp({ config, orm, runJobs: false });
  return {
    app,
    async close() {
      await app.close();
      await orm.close();
    },
  };
});
