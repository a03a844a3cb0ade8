import type { Lock, Locker, RequestRelease } from '@tus/server';
import type { FastifyBaseLogger } from 'fastify';
import { Client } from 'pg';

// A tus Locker that every instance on the database honours, so that an upload begun on one instance
// can go on on another (their unfinished uploads shared in the bucket) without two requests writing it
// at once. An upload's lock is a PostgreSQL advisory lock taken on one connection of the instance; a
// session's advisory locks are re-entrant, so the instance also keeps its holders in a map. As tus asks,
// a request wanting a held lock asks its holder to let go (the holder's request is cancelled): in this
// instance directly, on another by NOTIFY, which every instance LISTENs to.

const CHANNEL = 'tus_upload_release';
/** How long a request waits for a lock, as tus's own MemoryLocker. */
const ACQUIRE_TIMEOUT_MS = 30_000;
const RETRY_MS = 50;

/** Locked (423): tus clients retry it. */
const BUSY = { status_code: 423, body: 'The upload is in use by another request; try again\n' };

type Holder = { release: RequestRelease };

export class PgLocker implements Locker {
  private connection?: Promise<Client>;
  private readonly holders = new Map<string, Holder>();
  /** The connection's statements, one after another: a pg client runs one query at a time. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  newLock(id: string): Lock {
    let holder: Holder | undefined;
    return {
      lock: async (signal, release) => {
        holder = await this.acquire(id, signal, release);
      },
      unlock: async () => {
        if (holder && this.holders.get(id) === holder) {
          this.holders.delete(id);
          await this.query('select pg_advisory_unlock(hashtextextended($1, 0))', [id]);
        }
      },
    };
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await (await connection)?.end();
  }

  private async acquire(id: string, signal: AbortSignal, release: RequestRelease): Promise<Holder> {
    const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
    while (!signal.aborted && Date.now() < deadline) {
      const local = this.holders.get(id);
      if (local) {
        await local.release();
      } else {
        // Claimed in the map before the query, so that no other request of this instance takes it meanwhile.
        const holder = { release };
        this.holders.set(id, holder);
        const [{ held }] = await this.query<{ held: boolean }>(
          'select pg_try_advisory_lock(hashtextextended($1, 0)) as held',
          [id],
        );
        if (held) return holder;
        this.holders.delete(id);
        await this.query('select pg_notify($1, $2)', [CHANNEL, id]);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    throw BUSY;
  }

  private query<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    const run = this.turn.then(async () => (await (await this.client()).query<R>(sql, params)).rows);
    this.turn = run.catch(() => undefined);
    return run;
  }

  private client(): Promise<Client> {
    this.connection ??= this.connect();
    return this.connection;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.url });
    client.on('notification', (message) => void this.holders.get(message.payload ?? '')?.release());
    client.on('error', (err) => this.lost(client, err));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      this.connection = undefined;
      throw err;
    }
    return client;
  }

  /** The connection went, and with it its advisory locks: their holders stop, and the next lock reconnects. */
  private lost(client: Client, err: Error): void {
    this.log.warn({ err }, 'the upload lock connection was lost');
    this.connection = undefined;
    void client.end().catch(() => undefined);
    for (const holder of this.holders.values()) void holder.release();
    this.holders.clear();
  }
}
