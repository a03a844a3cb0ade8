import { SHARED_CACHE_ENTRIES } from '../limits';

/**
 * The channel on which PostgreSQL announces a change to a cached table: a statement-level trigger
 * (`notify_shared_cache()`, migration 20261127000000) sends the table's name when a statement changes
 * it, and the NOTIFY goes out when that transaction commits, to every instance.
 */
export const SHARED_CACHE_CHANNEL = 'gather_shared_cache';

/**
 * One table's rows as this instance last read them, by key. A value is kept only while the instance
 * hears the table's changes (`live`): the cache is emptied by any change to the table on any
 * instance, and bypassed while the LISTEN connection is down (it is emptied when it drops, since
 * notifications are lost meanwhile). A read that started before a change does not store its
 * (possibly older) answer. Values are shared by every caller: never change one.
 */
export class SharedCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** Bumped by each change: a read stores its answer only if none came while it ran. */
  private generation = 0;

  constructor(
    private readonly live: () => boolean,
    private readonly ttlMs: number,
  ) {}

  /** The value under `key`, from `load` when not cached (a null or undefined answer is not kept). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    const [value] = await this.getMany([key], async () => [await load()]);
    return value;
  }

  /**
   * The values under `keys`, in their order: those not cached from one call of `load` with the
   * others' keys, which answers a value per key in the order given.
   */
  async getMany(keys: readonly string[], load: (missing: string[]) => Promise<V[]>): Promise<V[]> {
    if (this.ttlMs === 0 || !this.live()) return load([...keys]);
    const now = Date.now();
    const values: V[] = new Array(keys.length);
    const missing: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const hit = this.entries.get(keys[i]);
      if (hit && hit.expires > now) values[i] = hit.value;
      else missing.push(i);
    }
    if (missing.length === 0) return values;
    const generation = this.generation;
    const loaded = await load(missing.map((i) => keys[i]));
    const keep = generation === this.generation && this.live();
    missing.forEach((at, j) => {
      const value = (values[at] = loaded[j]);
      if (keep && value != null) this.store(keys[at], value, now);
    });
    return values;
  }

  private store(key: string, value: V, now: number): void {
    this.entries.delete(key);
    if (this.entries.size >= SHARED_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

/** An instance's shared caches, each emptied on changes to the tables its values come from (see SharedCache). */
export class SharedCaches {
  private readonly caches = new Map<string, { cache: SharedCache<unknown>; tables: readonly string[] }>();

  /**
   * `live`: whether this instance hears the tables' changes now (its LISTEN connection is up);
   * `seconds`: how long a value is kept at most (0: not at all).
   */
  constructor(
    private readonly live: () => boolean,
    private readonly seconds: number,
  ) {}

  /**
   * The cache `name`, of values read from `tables` (tables whose changes the migration's trigger
   * announces); the first call names the tables.
   */
  of<V>(name: string, tables: readonly string[] = [name]): SharedCache<V> {
    let entry = this.caches.get(name);
    if (!entry)
      this.caches.set(name, (entry = { cache: new SharedCache<unknown>(this.live, this.seconds * 1000), tables }));
    return entry.cache as SharedCache<V>;
  }

  /** A change to `table` committed somewhere; null: changes may have been missed (all go). */
  changed(table: string | null): void {
    for (const { cache, tables } of this.caches.values()) if (table === null || tables.includes(table)) cache.clear();
  }
}
