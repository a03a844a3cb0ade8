import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../kernel/errors/app-error';
import { WorkerLimitError, WorkerPool, workerTask, type Ask, type WorkerTask } from '../../kernel/workers/pool';
import { PDF_TIME_BUDGET_SECONDS, PDF_WORKER_HEAP_MB, PDF_WORKERS } from './contract.limits';
import type * as tasks from './contract.pdf-tasks';

// PDFs are read off the main thread: a bad one costs a worker's heap and time budget, never the event loop.

const pool = new WorkerPool({
  size: PDF_WORKERS,
  heapMb: PDF_WORKER_HEAP_MB,
  timeoutMs: PDF_TIME_BUDGET_SECONDS * 1000,
  // Starting a worker (loading pdf-lib) takes a few hundred milliseconds: kept a while for the next PDF.
  idleMs: 60_000,
});

const TASKS = join(__dirname, 'contract.pdf-tasks.ts');
export const INSPECT = workerTask<typeof tasks.inspect>(TASKS, 'inspect');
export const PREVIEW = workerTask<typeof tasks.preview>(TASKS, 'preview');

/**
 * Runs a PDF task in the PDF workers. A PDF that passes a worker's time budget or heap is refused (a 422 naming
 * `field`), and logged as a warning: it may be an attack.
 */
export async function runPdfTask<I, O>(
  ctx: { log: FastifyBaseLogger },
  task: WorkerTask<I, O>,
  input: () => I | Promise<I>,
  options: { field: string[]; answer?: Ask },
): Promise<O> {
  try {
    return await pool.run(task, input, options.answer);
  } catch (err) {
    if (!(err instanceof WorkerLimitError)) throw err;
    ctx.log.warn({ task: task.name, limit: err.limit }, 'a PDF passed a worker limit');
    const message =
      err.limit === 'time'
        ? `The PDF takes more than ${PDF_TIME_BUDGET_SECONDS} s to read`
        : `The PDF needs more than ${PDF_WORKER_HEAP_MB} MiB of memory to read`;
    throw AppError.validation([{ field: options.field, message, code: 'INVALID' }]);
  }
}

/** Stops the PDF workers (the app's close); the next PDF starts them again. */
export const stopPdfWorkers = () => pool.close();
