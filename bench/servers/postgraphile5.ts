import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { env, serve } from './child';

// PostGraphile 5 (Grafast) over Gather's tables, the `users` group's second peer (issue 15), as a
// library in its own process on Node 22 (it needs 22 or later). Not a project dependency: the runner
// installs the newest 5.x into a cache directory (BENCH_PG5_DIR, ~/.cache/gather-bench/postgraphile5)
// with Node 22's npm, and this file loads it from there. Its own recommended preset (amber), production
// settings (no GraphiQL, no watch, no explain), schema `public` introspected at start, a `pg` pool of
// the same size as Gather's. Like PostGraphile 4 it applies no tenancy: the runner's query names the
// organization in `condition`. Filtering and ordering by unindexed columns allowed, as PostGraphile 4
// does by default (its `ignoreIndexes: true`; 5's v4 preset does the same by this plugin's removal):
// the page orders by (created_at, id) and filters by organization and deleted_at.
//
//   POST /graphql  -> PostGraphile's answer

serve('postgraphile5', async () => {
  const load = createRequire(join(env('BENCH_PG5_DIR'), 'node_modules', 'postgraphile', 'package.json'));
  const { postgraphile } = load('postgraphile');
  const { PostGraphileAmberPreset } = load('postgraphile/presets/amber');
  const { makePgService } = load('postgraphile/adaptors/pg');
  const { grafserv } = load('postgraphile/grafserv/node');
  const { Pool } = load('pg');
  const pool = new Pool({ connectionString: env('BENCH_DB_URL'), max: Number(env('BENCH_POOL_MAX')) });
  const pgl = postgraphile({
    extends: [PostGraphileAmberPreset],
    disablePlugins: ['PgIndexBehaviorsPlugin'],
    pgServices: [makePgService({ pool, schemas: ['public'] })],
    grafserv: { graphiql: false, watch: false, graphqlOverGET: false },
    grafast: { explain: false },
  });
  const serv = pgl.createServ(grafserv);
  const server = createServer();
  serv.addTo(server);
  // The schema is built on the first request otherwise.
  await pgl.getSchema();
  await new Promise<void>((done) => server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', done));
  return {
    app: { server },
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      await pgl.release();
      await pool.end().catch(() => undefined);
    },
  };
});
