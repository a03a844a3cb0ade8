// Loaded into a Gather process started by `npm start` (NODE_OPTIONS=--require <this file>) by
// bench/users-probe.ts, which investigates why the list slows once the process has served writes. It
// changes nothing in the service: it answers a few commands on a port of its own (BENCH_PROBE_PORT),
// on loopback, between the measured windows:
//   GET /promise-cost   ns per awaited promise (promise hooks on or off)
//   GET /pg-rows        statements and rows by statement text since the last call (pg's Client.query wrapped)
//   GET /mark?text=T    writes "[probe mark] T" to stdout (the log), between phases
//   GET /hooks          when the first AsyncLocalStorage was enabled (Node 20: promise hooks on from then), and from where
//   GET /als            runs `new AsyncLocalStorage().run(1, () => {})` once (what MikroORM's first flush does)
//   GET /flags?set=F    v8.setFlagsFromString(F) (--trace-deopt, --no-trace-deopt, ...)
//   GET /heap           V8's heap by space and the collections so far (time and count by kind)
//   GET /profile-start, /profile-stop?path=P   V8's CPU profile of the window (as child.ts does)
//   GET /heap-sampling-start[?minor=1], /heap-sampling-stop?path=P   V8's sampling heap profile (see below)
// BENCH_PROBE_V8_FLAGS: V8 flags set at load (those NODE_OPTIONS refuses, e.g. --trace-pretenuring).
// With BENCH_PROBE_TRACE=<file>, V8's code traces (--trace-deopt, --trace-opt) go to that file, opened
// and closed around each trace, so the runner can count them by window from the file's size.
// NODE_OPTIONS reaches npm too (a node process): only the service's own process answers.
const port = Number(process.env.BENCH_PROBE_PORT);
if (port && process.argv.some((arg) => arg === 'src/main.ts' || arg.endsWith('/src/main.ts'))) {
  const http = require('node:http');
  const v8 = require('node:v8');
  // V8 flags NODE_OPTIONS does not accept (--trace-pretenuring, --no-allocation-site-pretenuring, ...),
  // set before the service loads.
  for (const flag of (process.env.BENCH_PROBE_V8_FLAGS || '').split(/\s+/).filter(Boolean)) v8.setFlagsFromString(flag);
  if (process.env.BENCH_PROBE_TRACE) {
    v8.setFlagsFromString('--redirect-code-traces');
    v8.setFlagsFromString(`--redirect-code-traces-to=${process.env.BENCH_PROBE_TRACE}`);
  }
  const gc = { minor_ms: 0, major_ms: 0, incremental_ms: 0, other_ms: 0, minor: 0, major: 0, incremental: 0, other: 0 };
  require('./gc.cjs').observeGc((kind = 'other', ms) => {
    gc[`${kind}_ms`] += ms;
    gc[kind] += 1;
  });
  // Who turned Node 20's promise hooks on, and when: the first AsyncLocalStorage enabled (its `_enable`,
  // which `run` and `enterWith` call; Node 22 and 24 have none, their storage needs no hooks there).
  const hooks = { enabled_at: null, by: null, storages: 0 };
  const storage = require('node:async_hooks').AsyncLocalStorage.prototype;
  if (typeof storage._enable === 'function') {
    const enable = storage._enable;
    storage._enable = function () {
      if (!this.enabled) {
        hooks.storages += 1;
        if (!hooks.enabled_at) {
          hooks.enabled_at = new Date().toISOString();
          hooks.by = (new Error().stack || '').split('\n').slice(2, 14).join('\n');
        }
      }
      return enable.apply(this, arguments);
    };
  }
  // Rows and statements by statement text (its first 90 characters), since the last GET /pg-rows: who
  // reads what while the list runs.
  const pgRows = new Map();
  // %InYoungGeneration, with natives syntax on for this function only (BENCH_PROBE_YOUNG=1).
  let young;
  if (process.env.BENCH_PROBE_YOUNG === '1') {
    v8.setFlagsFromString('--allow-natives-syntax');
    young = new Function('o', 'return %InYoungGeneration(o)');
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
  const { Client } = require(require.resolve('pg', { paths: [process.cwd()] }));
  const query = Client.prototype.query;
  const count = (config, res) => {
    const text = String(typeof config === 'string' ? config : config && config.text)
      .replace(/\s+/g, ' ')
      .slice(0, 90);
    const entry = pgRows.get(text) || { statements: 0, rows: 0, resultOld: 0, rowsOld: 0, rowOld: 0 };
    entry.statements += 1;
    entry.rows += res && Array.isArray(res.rows) ? res.rows.length : 0;
    // Where V8 put pg's Result, its `rows` array and its first row, as the statement completes: in the
    // old generation at once means pretenured (an allocation site V8 decided to tenure), as a result
    // younger than its rows array cannot have been promoted before it.
    if (young && res && Array.isArray(res.rows)) {
      if (!young(res)) entry.resultOld += 1;
      if (!young(res.rows)) entry.rowsOld += 1;
      if (res.rows.length && !young(res.rows[0])) entry.rowOld += 1;
    }
    pgRows.set(text, entry);
  };
  Client.prototype.query = function (config, ...rest) {
    const last = rest.length - 1;
    if (typeof rest[last] === 'function') {
      const callback = rest[last];
      rest[last] = (err, res) => {
        if (!err) count(config, res);
        return callback(err, res);
      };
    } else if (config && typeof config.callback === 'function') {
      const callback = config.callback;
      config.callback = (err, res) => {
        if (!err) count(config, res);
        return callback(err, res);
      };
    }
    const result = query.call(this, config, ...rest);
    if (result && typeof result.then === 'function')
      result.then(
        (res) => count(config, res),
        () => undefined,
      );
    return result;
  };
  let session;
  const post = (method, params) =>
    new Promise((done, fail) => session.post(method, params || {}, (err, result) => (err ? fail(err) : done(result))));
  // A profile of a window: a session of its own from its start command to its stop command.
  const connect = () => {
    const { Session } = require('node:inspector');
    session = new Session();
    session.connect();
  };
  /** The stop command of a profile that `method` ends: it writes the profile to ?path=P. */
  const save = (method) => async (query) => {
    const { profile } = await post(method);
    require('node:fs').writeFileSync(query.get('path'), JSON.stringify(profile));
    session.disconnect();
    session = undefined;
    return { ok: true };
  };
  const commands = {
    // Nanoseconds per awaited promise, over 200,000: with Node 20's promise hooks on (after a first
    // AsyncLocalStorage run) several times what it is without.
    '/promise-cost': async () => {
      const n = 200000;
      const t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await Promise.resolve(i);
      return { ns: Number(process.hrtime.bigint() - t) / n };
    },
    '/hooks': () => hooks,
    // A line in the process's stdout (its log), to find V8's traces (--trace-pretenuring) by phase.
    '/mark': (query) => {
      process.stdout.write(`[probe mark] ${query.get('text')}\n`);
      return { ok: true };
    },
    '/pg-rows': () => {
      const out = Object.fromEntries([...pgRows].sort((a, b) => b[1].rows - a[1].rows));
      pgRows.clear();
      return out;
    },
    '/als': () => {
      const { AsyncLocalStorage } = require('node:async_hooks');
      new AsyncLocalStorage().run(1, () => {});
      return { ok: true };
    },
    '/flags': (query) => {
      v8.setFlagsFromString(query.get('set'));
      return { ok: true };
    },
    '/heap': () => ({
      spaces: Object.fromEntries(
        v8.getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.space_used_size / 1024 / 1024)]),
      ),
      used_mb: Math.round(v8.getHeapStatistics().used_heap_size / 1024 / 1024),
      total_mb: Math.round(v8.getHeapStatistics().total_heap_size / 1024 / 1024),
      gc: { ...gc },
    }),
    '/profile-start': async () => {
      connect();
      await post('Profiler.enable');
      await post('Profiler.start');
      return { ok: true };
    },
    // V8's sampling heap profile of the window, keeping the samples of objects a major collection freed
    // but not those a scavenge freed: what is left is, by allocation site, what survived scavenges (was
    // promoted, or is still young at the end), i.e. the bytes each scavenge promotes, by who allocated them.
    '/heap-sampling-start': async (query) => {
      connect();
      await post('HeapProfiler.enable');
      await post('HeapProfiler.startSampling', {
        samplingInterval: Number(query.get('interval') || 16384),
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: query.get('minor') === '1',
      });
      return { ok: true };
    },
    '/heap-sampling-stop': save('HeapProfiler.stopSampling'),
    '/profile-stop': save('Profiler.stop'),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://probe');
    const command = commands[url.pathname];
    if (!command) {
      res.statusCode = 404;
      return res.end();
    }
    Promise.resolve()
      .then(() => command(url.searchParams))
      .then(
        (result) => res.end(JSON.stringify(result)),
        (err) => {
          res.statusCode = 500;
          res.end(String(err && err.stack));
        },
      );
  });
  server.listen(port, '127.0.0.1');
  server.unref();
}
