import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const TSX = join(ROOT, 'node_modules/.bin/tsx');

/** The environment a child process starts from: nothing of the test run's own variables. */
export const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' });

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** A scratch DATA_DIR the embedded server's system user can enter (mkdtemp makes it private). */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

export type RunningService = {
  process: ChildProcess;
  port: number;
  /** Everything the process printed so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Sends a signal to the process group, as a terminal's Ctrl-C does, and resolves with the exit code. */
  interrupt(): Promise<number | null>;
};

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** Starts `npm start`'s entry (src/main.ts) and resolves once it answers /healthz. */
export async function startService(env: Record<string, string>): Promise<RunningService> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // One process (tsx as a loader, not as a wrapper), so a signal reaches the server itself.
  // A process group of its own, as a shell gives a foreground job.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    detached: true,
    env: { ...baseEnv(), LOG_LEVEL: 'info', ...env, PORT: String(port) },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const deadline = Date.now() + 60_000;
  // Started once it answers and, where its log level shows them, has printed its start lines (the
  // last says it listens): /healthz can answer before the lines after `listen` are out.
  const printsStart = ['info', 'debug', 'trace'].includes(env.LOG_LEVEL ?? 'info');
  while (!(await answers(port)) || (printsStart && !/Gather is listening on /.test(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      // Nobody gets a handle to stop it: a service slow to start (a loaded machine) must not outlive the
      // test; SIGTERM, so it stops the embedded PostgreSQL it may have started (in a group of its own).
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      throw new Error(`the service did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    port,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
    async interrupt() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  };
}
