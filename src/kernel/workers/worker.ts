import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors/app-error';
import type { Ask, WorkerFailure, WorkerMessage } from './pool';

// The entry of a pool's worker (pool.ts): runs one task at a time, the export its message names.

type Incoming =
  | { type: 'run'; file: string; name: string; input: unknown }
  | { type: 'answer'; id: number; value: unknown; error?: WorkerFailure };

const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);
const answers = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let asked = 0;

const ask: Ask = (question) =>
  new Promise((resolve, reject) => {
    const id = ++asked;
    answers.set(id, { resolve, reject });
    post({ type: 'ask', id, question });
  });

function describe(err: unknown): WorkerFailure {
  const error = err instanceof Error ? err : new Error(String(err));
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    app: error instanceof AppError ? { code: error.code, userErrors: error.userErrors } : undefined,
  };
}

port.on('message', async (message: Incoming) => {
  if (message.type === 'answer') {
    const waiting = answers.get(message.id);
    answers.delete(message.id);
    if (message.error) waiting?.reject(new Error(message.error.message));
    else waiting?.resolve(message.value);
    return;
  }
  try {
    // The task's module is named by the message, so it is required here rather than imported.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tasks = require(message.file) as Record<string, (input: unknown, ask: Ask) => Promise<unknown>>;
    post({ type: 'done', value: await tasks[message.name](message.input, ask) });
  } catch (err) {
    post({ type: 'failed', error: describe(err) });
  }
});
