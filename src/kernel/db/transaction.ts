import type { EntityManager } from '@mikro-orm/postgresql';
import { Pipeline, sendOne, type StatementConfig } from './pipeline';

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

/** A pipeline lean.ts sends, or a held write sent on its own. */
type Statement = StatementConfig | Pipeline;
type PgConnection = {
  /** pg's client: a text is answered with a promise, a pipeline is returned (it reports through its events). */
  query(statement: string | Pipeline): Promise<unknown> | Pipeline;
  /** pg's connection: the statements prepared on it. */
  connection: { parsedStatements: Record<string, string> };
  __knex__disposed?: unknown;
};
/** `commit` and `rollback`, sent alone. */
const sendText = (connection: PgConnection, sql: 'commit' | 'rollback') => connection.query(sql) as Promise<unknown>;
type ConnectionPool = {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
};

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
  new Error(
    `MikroORM or knex used in a lean transaction (read "${member}" of its context): only lean statements (kernel/db/lean.ts) may run in one; use inTransaction`,
  );

/**
 * `inTransaction` for work that writes and reads through lean statements only (kernel/db/lean.ts):
 * `begin` and `commit` go straight to a connection of the pool, without MikroORM's transaction and
 * the knex transaction object it builds for each one (a tenth of a create's CPU in its profile,
 * bench/README.md). The fork's transaction context hands lean statements that connection, as a knex
 * transaction's would, and refuses every other use: MikroORM or knex would otherwise run outside the
 * transaction. A managed entity created or changed in it fails the transaction at its end.
 *
 * `begin` and `commit` take no round trip of their own (each was one of a PATCH's six): `begin`
 * goes in the same message as the transaction's first statement, and `commit` with its last write
 * when that write was handed over with `writeAtCommit` (the outbox's event), else on its own
 * (kernel/db/pipeline.ts). Writes held with `writeAtCommit` (a PATCH's update, the event) take
 * none either: they go before the next statement sent, in its message (so it sees them), or with
 * the commit, all of them in one message.
 */
export async function inLeanTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return work(em);
  const pool = em.getConnection('write').getKnex().client as unknown as ConnectionPool;
  const connection = await pool.acquireConnection();
  let ended = false;
  let begun = false;
  const held: StatementConfig[] = [];
  const send = (statement: Statement, along: StatementConfig[] = [], after?: 'commit') => {
    const before = begun ? undefined : 'begin';
    begun = true;
    const brackets = { before, after, held: along };
    if (statement instanceof Pipeline) return connection.query(statement.bracket(brackets));
    return sendOne(connection, statement, { brackets });
  };
  // A prepared write not yet parsed on the connection cannot ride before another statement (see
  // pipeline.ts): it carries the held writes before it, in a round trip of its own (once per connection).
  const parsed = (config: StatementConfig) =>
    !config.name || connection.connection.parsedStatements[config.name] !== undefined;
  /** Sends `statement` with the writes held before it: in its own round trip but for the unparsed ones. */
  const sendHeld = (statement: Statement, after?: 'commit') => {
    if (held.every(parsed)) return send(statement, held.splice(0), after);
    return (async () => {
      let along: StatementConfig[] = [];
      for (const config of held.splice(0)) {
        if (parsed(config)) along.push(config);
        else {
          await send(config, along);
          along = [];
        }
      }
      return send(statement, along, after);
    })();
  };
  // As a pg client's `query` of a pipeline (lean.ts sends nothing else): returned at once, reporting through its
  // events.
  const transactionConnection = {
    query(statement: Pipeline) {
      if (!held.length) return send(statement);
      const sent = sendHeld(statement);
      if (sent === statement) return sent;
      // Its caller listens to its events: a held write that failed fails it there.
      (sent as Promise<unknown>).catch((err: Error) => statement.emit('error', err));
      return statement;
    },
  };
  const client = only(
    { acquireConnection: async () => transactionConnection, releaseConnection: async () => undefined },
    managedUse,
  );
  const tx = em.fork();
  const atCommit = (config: StatementConfig) => void held.push(config);
  // Lean statements go straight to `transactionConnection` (no promise to take and give it back).
  tx.setTransactionContext(
    only({ client, leanConnection: transactionConnection, isCompleted: () => ended, atCommit }, managedUse),
  );
  const log = (sql: string) => tx.config.getLogger().logQuery({ query: sql, level: 'info' });
  let result: T;
  try {
    log('begin');
    result = await work(tx);
    if (!nothingToFlush(tx)) throw new Error('managed entities were written in a lean transaction: use inTransaction');
    // Once `commit` is on its way, the transaction refuses statements (they would run after it, on their own).
    ended = true;
    log('commit');
    const last = held.pop();
    if (last) await sendHeld(last, 'commit');
    else if (begun) await sendText(connection, 'commit');
  } catch (err) {
    ended = true;
    held.length = 0;
    // After a failed `commit` PostgreSQL has ended the transaction already, and this only warns.
    if (begun) {
      log('rollback');
      await sendText(connection, 'rollback').catch((failure: unknown) => {
        // The connection is broken: the pool drops it instead of handing it out again.
        connection.__knex__disposed ??= failure;
      });
    }
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
  return (
    uow.getPersistStack().size === 0 &&
    uow.getRemoveStack().size === 0 &&
    uow.getOrphanRemoveStack().size === 0 &&
    uow.getIdentityMap()[Symbol.iterator]().next().done === true
  );
}

/** Runs `callback` once the transaction `tx` (from inTransaction) commits; never if it rolls back. */
export function afterCommit(tx: EntityManager, callback: () => void): void {
  const callbacks = committed.get(tx);
  if (callbacks) callbacks.push(callback);
  else committed.set(tx, [callback]);
}
