import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// Benchmark servers run in processes of their own (bench/servers/*.ts), started here with tsx as a
// loader, so their CPU and memory are theirs alone and `--cpu-prof` profiles only them.

/**
 * ours, apollo, bare: the HTTP scenarios (ours also serves the fan-out, webhook and file scenarios);
 * ws-bare: the bare `ws` broadcast of the fan-out baseline; receiver: the webhook receiver; production:
 * Gather with its limits on (bench/batch-attack.ts).
 */
export type ServerName =
  'ours' | 'production' | 'apollo' | 'bare' | 'postgraphile' | 'postgraphile5' | 'ws-bare' | 'receiver';

export const ROOT = resolve(__dirname, '..', '..');
export const PROFILE_DIR = join(ROOT, 'bench', 'results', 'profiles');

export type ServerProcess = {
  name: ServerName;
  pid: number;
  /** Where `--cpu-prof` writes this server's profiles, when profiled. */
  profileDir?: string;
  url: string;
  /** Resident set size now, in MB. */
  rssMb(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  /** Starts a CPU profile of the server (see servers/child.ts). */
  profileStart(): Promise<void>;
  /** Stops it and has the server write it to `path`. */
  profileStop(path: string): Promise<void>;
  /** Runs one of the server's own commands (servers/child.ts, `commands`) and returns its result. */
  command<T = unknown>(type: string, args?: Record<string, unknown>): Promise<T>;
  /** File descriptors open now, and the process's limit (RLIMIT_NOFILE, soft). */
  fds(): { open: number; limit: number };
  stop(): Promise<void>;
};

const CLOCK_TICKS = 100;

function procStatus(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

const SCHEDSTAT = existsSync('/proc/self/schedstat');

/** One thread of a process: the main one (its id is the process's), or one of V8's and libuv's by name. */
export type ThreadCpu = { main: boolean; name: string; seconds: number };

/**
 * CPU time of each thread of a process so far, in seconds: its time on a CPU, which the scheduler
 * keeps in nanoseconds (`/proc/<pid>/task/<tid>/schedstat`, first field). `utime` and `stime` of
 * `/proc/<pid>/stat` come in clock ticks of 10 ms: over a fan-out's 20 events at 100 subscribers
 * (60-160 ms of CPU in all) that step was 6-16% of the figure. Where schedstat is missing (a kernel
 * without CONFIG_SCHED_INFO), the ticks.
 */
export function threadCpu(pid: number): ThreadCpu[] {
  const threads: ThreadCpu[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${tid}`;
      const name = readFileSync(`${dir}/comm`, 'utf8').trim();
      let seconds: number;
      if (SCHEDSTAT) seconds = Number(readFileSync(`${dir}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
      else {
        // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
        const stat = readFileSync(`${dir}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
      }
      threads.push({ main: tid === String(pid), name, seconds });
    } catch {
      // a thread that ended meanwhile
    }
  }
  return threads;
}

/**
 * CPU seconds of a process so far: its main thread's, and all its other threads' together (V8's collector and compiler,
 * libuv's pool).
 */
export function mainAndOthers(pid: number): { main: number; others: number } {
  const split = { main: 0, others: 0 };
  for (const thread of threadCpu(pid)) split[thread.main ? 'main' : 'others'] += thread.seconds;
  return split;
}

function procCpu(pid: number): number {
  return threadCpu(pid).reduce((sum, thread) => sum + thread.seconds, 0);
}

const running = new Set<ChildProcess>();

/** Ends every server this process started (Ctrl-C, failures); each by its own pid. */
export function killAllServers(): void {
  for (const child of running) {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}

export function procFds(pid: number): { open: number; limit: number } {
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  const match = /^Max open files\s+(\d+)/m.exec(limits);
  return { open: readdirSync(`/proc/${pid}/fd`).length, limit: match ? Number(match[1]) : NaN };
}

/**
 * `cpuProf`: run the whole process under `node --cpu-prof` (start-up included). `env`: settings of
 * that server only (the webhook scenario's instance starts with its job queue stopped).
 */
export async function startServer(
  name: ServerName,
  options: {
    dbUrl: string;
    poolMax: number;
    cpuProf: boolean;
    env?: Record<string, string>;
    label?: string;
    nodeArgs?: string[];
    root?: string;
    /** Another node binary than the runner's (PostGraphile 5 runs on Node 22). */
    node?: string;
  },
): Promise<ServerProcess> {
  const nodeArgs: string[] = [...(options.nodeArgs ?? [])];
  // One directory per server and run: node writes a profile per thread (tsx's loader has its own),
  // named CPU.<date>.<pid>.<thread>.<seq>.cpuprofile; the main thread is thread 0.
  const profileDir = options.cpuProf
    ? join(PROFILE_DIR, `${options.label ?? name}-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    : undefined;
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  }
  // `root`: another checkout of the repository (an A/B of two versions on one database, bench/create-cost.ts).
  const root = options.root ?? ROOT;
  const child = spawn(
    options.node ?? process.execPath,
    [...nodeArgs, '--import', 'tsx', join(root, 'bench', 'servers', `${name}.ts`)],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        BENCH_DB_URL: options.dbUrl,
        BENCH_POOL_MAX: String(options.poolMax),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  exited.then(() => running.delete(child));

  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} server did not start within 60 s\n${output}`)), 60_000);
    child.on('message', (message: { type?: string; port?: number }) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        done(message.port!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} server exited with code ${code} before it was ready\n${output}`));
    });
  });
  const pid = child.pid!;
  let requests = 0;
  const ask = <T = void>(message: object) =>
    new Promise<T>((done, fail) => {
      const id = ++requests;
      const listener = (answer: { type?: string; id?: number; error?: string; result?: unknown }) => {
        if (answer?.type !== 'reply' || answer.id !== id) return;
        child.off('message', listener);
        if (answer.error) fail(new Error(`${name}: ${answer.error}`));
        else done(answer.result as T);
      };
      child.on('message', listener);
      child.send({ ...message, id });
    });
  return {
    name,
    pid,
    profileDir,
    url: `http://127.0.0.1:${port}`,
    rssMb: () => procStatus(pid, 'VmRSS'),
    cpuSeconds: () => procCpu(pid),
    profileStart: () => ask({ type: 'profile-start' }),
    profileStop: (path) => ask({ type: 'profile-stop', path }),
    command: <T>(type: string, args: Record<string, unknown> = {}) => ask<T>({ ...args, type }),
    fds: () => procFds(pid),
    async stop() {
      if (child.exitCode !== null) return;
      child.send?.({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A load process of the runner (fan-out clients, the POST loop): IPC messages in and out. */
export type Helper = {
  pid: number;
  send(message: object): void;
  /** The next message of this type, or of one of these (matching `accept`), or a failure after `timeoutMs`. */
  next<T = Record<string, any>>(
    type: string | readonly string[],
    timeoutMs: number,
    accept?: (message: T) => boolean,
  ): Promise<T>;
  cpuSeconds(): number;
  stop(): Promise<void>;
};

/** Starts `bench/<script>` under tsx as a process of its own, killed with the servers on exit. */
export function startHelper(script: string, env: Record<string, string> = {}): Helper {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  exited.then(() => running.delete(child));
  return {
    pid: child.pid!,
    send: (message) => child.send(message),
    next: <T>(type: string | readonly string[], timeoutMs: number, accept?: (message: T) => boolean) =>
      new Promise<T>((done, fail) => {
        const types: readonly (string | undefined)[] = typeof type === 'string' ? [type] : type;
        const listener = (message: T & { type?: string }) => {
          if (!types.includes(message?.type) || (accept && !accept(message))) return;
          clearTimeout(timer);
          child.off('message', listener);
          child.off('exit', onExit);
          done(message);
        };
        const onExit = (code: number | null) => {
          clearTimeout(timer);
          child.off('message', listener);
          fail(new Error(`${script} (pid ${child.pid}) exited with code ${code} while waiting for "${type}"`));
        };
        const timer = setTimeout(() => {
          child.off('message', listener);
          child.off('exit', onExit);
          fail(new Error(`${script} (pid ${child.pid}): no "${type}" within ${timeoutMs} ms`));
        }, timeoutMs);
        child.on('message', listener);
        child.once('exit', onExit);
      }),
    cpuSeconds: () => procCpu(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
