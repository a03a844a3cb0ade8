import type { Ask } from '../../src/kernel/workers/pool';
import { AppError } from '../../src/kernel/errors/app-error';

// Tasks for the worker pool's tests (test/unit/worker-pool.test.ts), run in its workers.

export async function echo(input: { text: string }, ask: Ask): Promise<string> {
  return input.text === 'ask' ? String(await ask('name')) : input.text;
}

export async function refuse(): Promise<never> {
  throw AppError.validation([{ field: ['file'], message: 'Refused in the worker', code: 'INVALID' }]);
}

export async function spin(): Promise<never> {
  for (;;);
}

/**
 * Holds ever more, as a parser of a huge document would, until the heap runs out: in blocks of 128 KB,
 * so it runs out well within the time budget on a loaded machine.
 */
export async function grow(): Promise<never> {
  const held: number[][] = [];
  for (;;) held.push(new Array<number>(16_384).fill(held.length));
}
