import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRows } from './lean';

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
  return committedWith(tx, result);
}

type PgConnection = { query(sql: string): Promise<unknown>; __knex__disposed?: unknown };
type ConnectionPool = { acquireConnection(): Promise<PgConnection>; releaseConnection(connection: PgConnection): Promise<unknown> };

/** An object whose members are `members`, and any other member read is refused with `refusal`. */
function only<T extends object>(members: T, refusal: (member: string) => Error): T {
  return new Proxy(members, {
    get(target, key, receiver) {
      // Symbols and `then` are probes (inspection, awaiting), not uses.
      if (key in target || typeof key === 'symbol' || key === 'then') return Reflect.get(target, key, receiver);
      throw refusal(key);
    },
  });
}

const managedUse = (member: string) =>
  new Error(`MikroORM or knex used in a lean transaction (read "${member}" of its context): only lean statements (kernel/db/lean.ts) may run in one; use inTransaction`);

/**
 * `inTransaction` for work that writes and reads through lean statements only (kernel/db/lean.ts):
 * `begin` and `commit` go straight to a connection of the pool, without MikroORM's transaction and
 * the knex transaction object it builds for each one (a tenth of a create's CPU in its profile,
 * bench/README.md). The fork's transaction context hands lean statements that connection, as a knex
 * transaction's would, and refuses every other use: MikroORM or knex would otherwise run outside the
 * transaction. A managed entity created or changed in it fails the transaction at its end.
 */
export async function inLeanTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return work(em);
  const pool = em.getConnection('write').getKnex().client as unknown as ConnectionPool;
  const connection = await pool.acquireConnection();
  let ended = false;
  const client = only({ acquireConnection: async () => connection, releaseConnection: async () => undefined }, managedUse);
  const tx = em.fork();
  tx.setTransactionContext(only({ client, leanConnection: connection, isCompleted: () => ended }, managedUse));
  // Once `commit` or `rollback` is sent, the transaction refuses statements (they would run after it, on their own).
  const end = (sql: 'commit' | 'rollback') => {
    ended = true;
    tx.config.getLogger().logQuery({ query: sql, level: 'info' });
    return connection.query(sql);
  };
  let result: T;
  try {
    await queryRows(tx, 'begin');
    result = await work(tx);
    if (!nothingToFlush(tx)) throw new Error('managed entities were written in a lean transaction: use inTransaction');
    await end('commit');
  } catch (err) {
    // After a failed `commit` PostgreSQL has ended the transaction already, and this only warns.
    await end('rollback').catch((failure: unknown) => {
      // The connection is broken: the pool drops it instead of handing it out again.
      connection.__knex__disposed ??= failure;
    });
    throw err;
  } finally {
    await pool.releaseConnection(connection);
  }
  return committedWith(tx, result);
}

/** Runs the callbacks `afterCommit` registered on `tx`, then answers `result`. */
function committedWith<T>(tx: EntityManager, result: T): T {
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
