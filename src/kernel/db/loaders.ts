import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';

type WithId = { id: string };

const chains = new WeakMap<EntityManager, Promise<unknown>>();

/**
 * Runs `query` after the previous one of the same transaction: a transaction is one connection, and
 * a connection runs one statement at a time (pg 8 queues them with a deprecation warning; pg 9 refuses).
 * Outside a transaction every batch takes its own pooled connection and they run in parallel.
 */
function inTurn<T>(em: EntityManager, query: () => Promise<T>): Promise<T> {
  if (!em.isInTransaction()) return query();
  const previous = chains.get(em) ?? Promise.resolve();
  const next = previous.then(query, query);
  chains.set(em, next.catch(() => undefined));
  return next;
}

/** Batches lookups by id within one operation: one statement per batch. */
export function createByIdLoader<T extends WithId>(em: EntityManager, entity: EntityName<T>): DataLoader<string, T | null> {
  return new DataLoader(async (ids) => {
    const rows = await inTurn(em, () => em.find(entity, { id: { $in: [...ids] } } as unknown as FilterQuery<T>));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/** Batches "children of these parents" within one operation: one statement per batch, in `orderBy` order. */
export function createChildrenLoader<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  parentProperty: keyof T & string,
  orderBy: Record<string, 'asc' | 'desc'>,
  where: Record<string, unknown> = {},
): DataLoader<string, T[]> {
  return new DataLoader(async (parentIds) => {
    const rows = await inTurn(em, () =>
      em.find(entity, { ...where, [parentProperty]: { $in: [...parentIds] } } as FilterQuery<T>, { orderBy: orderBy as never }),
    );
    const groups = new Map<string, T[]>(parentIds.map((id) => [id, []]));
    for (const row of rows) {
      const parent = (row as Record<string, unknown>)[parentProperty] as WithId;
      groups.get(parent.id)?.push(row);
    }
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

type Ref<T> = { id: string; isInitialized(): boolean; getEntity(): T };

/**
 * The entity behind a reference. One this operation already holds (a request's items point at the
 * request just listed) primes the loader instead of costing a statement; everything else goes
 * through the loader's cache, so the statement count does not depend on which query finished first.
 */
export async function loadRef<T>(ref: Ref<T>, loader: DataLoader<string, T | null>): Promise<T | null> {
  if (ref.isInitialized()) loader.prime(ref.id, ref.getEntity());
  return loader.load(ref.id);
}
