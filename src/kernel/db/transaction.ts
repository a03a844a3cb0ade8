import type { EntityManager } from '@mikro-orm/postgresql';

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
  try {
    const result = await work(tx);
    await tx.commit();
    return result;
  } catch (err) {
    await tx.rollback();
    throw err;
  }
}
