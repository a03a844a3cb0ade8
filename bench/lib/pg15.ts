import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';
import { withClient } from './postgres';
import { ROOT } from './servers';

// PostgreSQL 15 from Debian's binaries (`apt-get install postgresql-15`), for the `users` group: the
// server a user gives Gather at DATABASE_URL, beside the embedded 18 the other groups run on. Its own
// cluster under .data/bench-pg15, its own port (24415, or BENCH_PG15_PORT), Debian's default settings.
// PostgreSQL refuses to run as root: the cluster belongs to the `postgres` system user the package
// makes (or, without it, to a `gatherbench` user made here), and every server command runs as that
// user. The database Gather gets is owned by a role without superuser, as the README's "Running in
// production" has it.

export const PG15_BIN = process.env.BENCH_PG15_BIN ?? '/usr/lib/postgresql/15/bin';
export const PG15_DIR = join(ROOT, '.data', 'bench-pg15');
// Below the ephemeral ports (32768-60999): the groups before this one open and close some 20,000 client
// sockets, any of which may still hold a port in that range when this server starts.
export const PG15_PORT = Number(process.env.BENCH_PG15_PORT ?? 24415);
const DATA = join(PG15_DIR, 'data');
const LOG = join(PG15_DIR, 'server.log');
const ROLE = 'gather_bench';
const DATABASE = 'gather_users';

export type Pg15 = {
  /** DATABASE_URL of the fresh database, owned by a role without superuser. */
  url: string;
  /** The superuser's URL (the runner's own checks and clean-up). */
  adminUrl: string;
  version: string;
  description: string;
  /** Drops and recreates the database (empty: Gather migrates it at start). */
  recreate(): Promise<void>;
  stop(): Promise<void>;
};

function userExists(name: string): boolean {
  return spawnSync('id', ['-u', name]).status === 0;
}

/** The system user the cluster runs as, made when missing (only as root). */
function clusterUser(): string | null {
  if (process.getuid?.() !== 0) return null;
  if (userExists('postgres')) return 'postgres';
  if (!userExists('gatherbench'))
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'gatherbench']);
  return 'gatherbench';
}

function run(user: string | null, command: string, args: string[], why?: () => string): string {
  const [file, argv] = user
    ? ['runuser', ['-u', user, '--', join(PG15_BIN, command), ...args]]
    : [join(PG15_BIN, command), args];
  const result = spawnSync(file, argv, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}${why ? ` ${why()}` : ''}`,
    );
  return result.stdout;
}

function running(user: string | null): boolean {
  return (
    spawnSync(user ? 'runuser' : join(PG15_BIN, 'pg_ctl'), [
      ...(user ? ['-u', user, '--', join(PG15_BIN, 'pg_ctl')] : []),
      'status',
      '-D',
      DATA,
    ]).status === 0
  );
}

export async function startPg15(log: (line: string) => void): Promise<Pg15> {
  if (!existsSync(join(PG15_BIN, 'postgres')))
    throw new Error(`no PostgreSQL 15 at ${PG15_BIN}: apt-get install postgresql-15 (or set BENCH_PG15_BIN)`);
  const user = clusterUser();
  mkdirSync(PG15_DIR, { recursive: true });
  if (user) {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }));
    chownSync(PG15_DIR, uid, gid);
  }
  if (!existsSync(join(DATA, 'PG_VERSION'))) {
    log(`initdb: PostgreSQL 15 cluster in ${relative(ROOT, DATA)}${user ? ` (as ${user})` : ''}`);
    run(user, 'initdb', ['-D', DATA, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  }
  const startedHere = !running(user);
  if (startedHere) {
    // pg_ctl's own error says only "examine the log output": the log's last FATAL says why.
    const why = () =>
      readFileSync(LOG, 'utf8')
        .split('\n')
        .filter((line) => / (FATAL|HINT): /.test(line))
        .slice(-2)
        .join('; ');
    run(
      user,
      'pg_ctl',
      [
        '-D',
        DATA,
        '-l',
        LOG,
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${PG15_PORT} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${PG15_DIR}`,
        'start',
      ],
      why,
    );
  } else log(`PostgreSQL 15 already running in ${relative(ROOT, DATA)}: joined, and stopped at the end`);
  const adminUrl = `postgres://postgres@127.0.0.1:${PG15_PORT}/postgres`;
  const admin = <T>(work: (client: Client) => Promise<T>) => withClient(adminUrl, work);
  const version = await admin(async (client) => {
    const role = await client.query('select 1 from pg_roles where rolname = $1', [ROLE]);
    if (!role.rowCount) await client.query(`create role ${ROLE} login password '${ROLE}' nosuperuser nocreatedb`);
    return (await client.query<{ version: string }>('select version()')).rows[0].version;
  });
  const pg: Pg15 = {
    url: `postgres://${ROLE}:${ROLE}@127.0.0.1:${PG15_PORT}/${DATABASE}`,
    adminUrl,
    version,
    description: `PostgreSQL 15 (${PG15_BIN}) on 127.0.0.1:${PG15_PORT} (${relative(ROOT, DATA)}), database ${DATABASE} owned by ${ROLE} (no superuser)`,
    recreate: () =>
      admin(async (client) => {
        await client.query(`drop database if exists ${DATABASE} with (force)`);
        await client.query(`create database ${DATABASE} owner ${ROLE}`);
      }),
    async stop() {
      if (running(user)) run(user, 'pg_ctl', ['-D', DATA, '-m', 'fast', '-w', 'stop']);
    },
  };
  return pg;
}

/** The last lines of the cluster's log, for a failure's message. */
export function pg15LogTail(): string {
  try {
    return readFileSync(LOG, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}
