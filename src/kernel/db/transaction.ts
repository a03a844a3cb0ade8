import type { EntityManager } from '@mikro-orm/postgresql';

const committed = new WeakMap<EntityManager, Array<() => void>>();

/**
 * Runs `work` in a transaction on a fork of `em`, flushing and committing at the end, rolling back on
 * any error; inside a transaction already, it joins it. MikroORM's em.transactional() does the same
 * but keeps its transaction in an AsyncLocalStorage, which switches on Node's promise hooks for the
 * rest of the process: every promise of every request then pays for them (a fifth of a list
 * request's CPU in the profiles, bench/README.md). Nothing here reads that storage.
 */
export async function inTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return work(em);
  const tx = em.fork();
  await tx.begin();
  let result: T;
  try {
    result = await work(tx);
    if (nothingToFlush(tx)) {
      await tx.getConnection('write').commit(tx.getTransactionContext()!);
      tx.resetTransactionContext();
    } else await tx.commit();
  } catch (err) {
    await tx.rollback();
    throw err;
  }
  for (const callback of committed.get(tx) ?? []) callback();
  return result;
}

/**
 * Whether MikroORM's flush would find nothing to write: no managed entity, nothing persisted or
 * removed (writes on lean records, the create's, leave it so). Its flush then costs a unit-of-work
 * pass and an AsyncLocalStorage run, which switches Node's promise hooks on for the whole process,
 * for no statement: callers skip it.
 */
export function nothingToFlush(em: EntityManager): boolean {
  const uow = em.getUnitOfWork(false);
  return uow.getPersistStack().size === 0 && uow.getRemoveStack().size === 0 && uow.getOrphanRemoveStack().size === 0 && uow.getIdentityMap()[Symbol.iterator]().next().done === true;
}

/** Runs `callback` once the transaction `tx` (from inTransaction) commits; never if it rolls back. */
export function afterCommit(tx: EntityManager, callback: () => void): void {
  const callbacks = committed.get(tx);
  if (callbacks) callbacks.push(callback);
  else committed.set(tx, [callback]);
}
