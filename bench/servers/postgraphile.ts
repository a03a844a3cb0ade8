import { createServer } from 'node:http';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Pool } from 'pg';
import { env, serve } from './child';

// The peer of issue 14: PostGraphile v4 over Gather's own tables, as a library in its own process.
// Production settings as its documentation gives them (no GraphiQL, no watch, no query log, errors
// without stacks), default inflection, no plugins, a `pg` pool of the same size as Gather's. It
// compiles a whole GraphQL query into one SQL statement that builds the JSON inside PostgreSQL, and
// applies no tenancy of its own: the runner filters by organization in the query's `condition`.
//
//   POST /graphql  -> PostGraphile's answer (schema introspected from the database at start)

/**
 * PostGraphile, loaded with one copy of `graphql` (15) and `graphile-build`. Beside the project's own
 * graphql 16, npm installs them twice (under `postgraphile/` and under `graphile-build-pg/`), and types
 * made by one copy fail the other's checks ("Unexpected input type"): in this process, which loads no
 * other GraphQL code, every request for them resolves from `postgraphile/`, as a flat install would.
 * Loaded through `createRequire`, so the packages go through Node's CommonJS loader (whose resolution
 * this hooks) rather than the ESM loader tsx runs the server under.
 */
function loadPostgraphile(): typeof import('postgraphile') {
  const load = createRequire(__filename);
  const base = dirname(load.resolve('postgraphile/package.json'));
  const shared = /^(graphql|graphile-build)(\/|$)/;
  const loader = Module as unknown as {
    _resolveFilename: (request: string, parent: unknown, isMain: boolean, options?: { paths?: string[] }) => string;
  };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request, parent, isMain, options) {
    return resolve.call(this, request, parent, isMain, shared.test(request) ? { paths: [base] } : options);
  };
  return load('postgraphile') as typeof import('postgraphile');
}

serve('postgraphile', async () => {
  const { postgraphile } = loadPostgraphile();
  const pool = new Pool({ connectionString: env('BENCH_DB_URL'), max: Number(env('BENCH_POOL_MAX')) });
  const middleware = postgraphile(pool, 'public', {
    subscriptions: false,
    watchPg: false,
    retryOnInitFail: false,
    dynamicJson: true,
    setofFunctionsContainNulls: false,
    ignoreRBAC: false,
    extendedErrors: ['errcode'],
    showErrorStack: false,
    graphiql: false,
    enableQueryBatching: false,
    disableQueryLog: true,
    legacyRelations: 'omit',
  });
  const server = createServer(middleware);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    app: { server },
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      await middleware.release();
      await pool.end();
    },
  };
});
