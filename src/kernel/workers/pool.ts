import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError, type AppErrorCode, type UserError } from '../errors/app-error';

// Work that must not run on the main thread (reading untrusted PDFs): a few worker threads, each
// with a heap limit, each task with a time budget. A worker that passes either is stopped and
// replaced; the process and the other tasks carry on.

/** A question a task asks the main thread while it runs (a signing key kept in the database). */
export type Ask = (question: string) => Promise<unknown>;

/** An exported function of a module, run in a worker: its input and result cross by structured clone. */
export type WorkerTask<I, O> = { readonly file: string; readonly name: string; readonly types?: [I, O] };

/** Names the export `name` of the module `file` (absolute); its type comes from `import type` of that module. */
export const workerTask = <F extends (input: any, ask: Ask) => Promise<unknown>>(
  file: string,
  name: string,
): WorkerTask<Parameters<F>[0], Awaited<ReturnType<F>>> => ({ file, name });

/** A task stopped for passing its worker's time budget or heap limit. */
export class WorkerLimitError extends Error {
  constructor(readonly limit: 'time' | 'memory') {
    super(limit === 'time' ? 'The task ran past its time budget' : 'The task ran out of its heap');
    this.name = 'WorkerLimitError';
  }
}

export type WorkerPoolOptions = {
  /** Workers at most; tasks beyond them wait their turn. */
  size: number;
  /** Heap (old generation) of each worker. */
  heapMb: number;
  /** From the task's start in its worker to its result. */
  timeoutMs: number;
  /** An idle worker is stopped after this long. */
  idleMs: number;
};

/** How a task's failure crosses back: an AppError keeps its code and user errors. */
export type WorkerFailure = {
  name: string;
  message: string;
  stack?: string;
  app?: { code: AppErrorCode; userErrors: UserError[] };
};

export type WorkerMessage =
  | { type: 'done'; value: unknown }
  | { type: 'failed'; error: WorkerFailure }
  | { type: 'ask'; id: number; question: string };

type Job = {
  task: WorkerTask<unknown, unknown>;
  input: () => unknown;
  answer?: Ask;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

type Slot = { worker: Worker; job: Job | null; timer?: NodeJS.Timeout; idle?: NodeJS.Timeout };

// Workers load TypeScript as the main thread does, through tsx's require hook: the `--import tsx` of
// the main thread does not carry over to a worker's entry file.
const BOOT = `const { workerData } = require('node:worker_threads');
require(workerData.tsx).register();
require(workerData.entry);`;
const WORKER_DATA = { tsx: require.resolve('tsx/cjs/api'), entry: join(__dirname, 'worker.ts') };

function revive(failure: WorkerFailure): Error {
  if (failure.app) return new AppError(failure.app.code, failure.message, { userErrors: failure.app.userErrors });
  const error = new Error(failure.message);
  error.name = failure.name;
  if (failure.stack) error.stack = failure.stack;
  return error;
}

export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];

  constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Runs `task` in a worker, once one is free. `input` is called then, so a waiting task holds no bytes;
   * `answer` answers what the task asks. Rejects with a WorkerLimitError past the time budget or heap.
   */
  run<I, O>(task: WorkerTask<I, O>, input: () => I | Promise<I>, answer?: Ask): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ task, input, answer, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; a task still running fails. */
  async close(): Promise<void> {
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.job);
      if (!slot) {
        if (this.slots.size >= this.options.size) return;
        slot = this.spawn();
      }
      void this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(BOOT, {
      eval: true,
      workerData: WORKER_DATA,
      // Not the main thread's flags (--import tsx, --cpu-prof): the worker sets itself up.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    const slot: Slot = { worker, job: null };
    this.slots.add(slot);
    worker.on('message', (message: WorkerMessage) => this.receive(slot, message));
    // An uncaught error (running out of heap included) ends the worker: it takes no further task.
    worker.on('error', (err: Error & { code?: string }) => {
      this.slots.delete(slot);
      this.settle(slot, err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new WorkerLimitError('memory') : err);
    });
    worker.on('exit', (code) => {
      this.slots.delete(slot);
      clearTimeout(slot.idle);
      this.settle(slot, new Error(`A worker stopped (exit code ${code}) before its task ended`));
      this.dispatch();
    });
    return slot;
  }

  private async start(slot: Slot, job: Job): Promise<void> {
    slot.job = job;
    clearTimeout(slot.idle);
    // A running task keeps the process alive (a script awaiting it); an idle worker does not.
    slot.worker.ref();
    let input: unknown;
    try {
      input = await job.input();
    } catch (err) {
      this.settle(slot, err);
      return;
    }
    if (slot.job !== job) return;
    slot.timer = setTimeout(() => {
      this.slots.delete(slot);
      void slot.worker.terminate();
      this.settle(slot, new WorkerLimitError('time'));
    }, this.options.timeoutMs);
    slot.worker.postMessage({ type: 'run', file: job.task.file, name: job.task.name, input });
  }

  private receive(slot: Slot, message: WorkerMessage): void {
    const job = slot.job;
    if (!job) return;
    if (message.type === 'ask') {
      const reply = (value: unknown, error?: WorkerFailure) =>
        slot.worker.postMessage({ type: 'answer', id: message.id, value, error });
      (job.answer ?? (() => Promise.reject(new Error(`No answer to ${message.question}`))))(message.question).then(
        (value) => reply(value),
        (err: Error) => reply(undefined, { name: err.name, message: err.message }),
      );
      return;
    }
    if (message.type === 'done') this.settle(slot, null, message.value);
    else this.settle(slot, revive(message.error));
  }

  /** Ends the slot's job (if it has one); a slot still in the pool waits for the next. */
  private settle(slot: Slot, error: unknown, value?: unknown): void {
    const job = slot.job;
    if (!job) return;
    slot.job = null;
    clearTimeout(slot.timer);
    if (error) job.reject(error);
    else job.resolve(value);
    if (this.slots.has(slot)) {
      slot.worker.unref();
      slot.idle = setTimeout(() => void slot.worker.terminate(), this.options.idleMs).unref();
    }
    this.dispatch();
  }
}
