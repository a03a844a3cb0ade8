import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { Client } from 'pg';
import { SHARED_CACHE_CHANNEL } from '../db/shared-cache';
import { EVENT_CHANNEL } from './outbox';
import { STORED_EVENT_COLUMNS, storedEvent, type StoredEvent, type StoredEventRow } from './topics';

/**
 * Hands every committed event to this instance's outlets, whichever instance wrote it: one LISTEN
 * connection per instance; a notification carries an event id, the row carries the event. Events
 * go out one at a time in the order their transactions committed (PostgreSQL delivers notifications
 * in commit order; sequence numbers are taken at insert, so they can commit out of order and are not
 * used for ordering). After a lost connection the instance reconnects and reads what committed
 * meanwhile, skipping what it already handed out, so a dropped notification loses nothing.
 * The same connection hears changes to the tables instances cache (`cacheChanged`, with the table;
 * null when the connection dropped and changes may have gone unheard).
 */
export class EventDispatcher extends EventEmitter<{
  event: [StoredEvent];
  cacheChanged: [table: string | null];
}> {
  private client?: Client;
  /** Ids recently handed out, to skip them when catching up. */
  private readonly seen = new Set<string>();
  private lastSeen = new Date(0);
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private retry?: NodeJS.Timeout;

  /**
   * `wanted` says whether anyone on this instance reads events now (subscribers); when nobody
   * does, a notification costs no statement. `written` answers the events this instance wrote itself
   * (`Outbox.take`): those are handed out without reading their row.
   */
  constructor(
    private readonly url: string,
    private readonly log: FastifyBaseLogger,
    private readonly wanted: () => boolean = () => true,
    private readonly written: (id: string) => StoredEvent | undefined = () => undefined,
  ) {
    super();
  }

  /** Whether the LISTEN connection is up (else events wait for the reconnection). */
  get listening(): boolean {
    return !this.stopped && this.client !== undefined;
  }

  async start(): Promise<void> {
    // Only what commits from now on: subscribers want live changes (effects are the job queue's).
    this.lastSeen = new Date();
    await this.connect(false);
  }

  private async connect(catchUp: boolean): Promise<void> {
    const client = new Client({ connectionString: this.url });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    await client.connect();
    client.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === SHARED_CACHE_CHANNEL) return void this.emit('cacheChanged', message.payload);
      const id = message.payload;
      const own = this.written(id);
      if (!this.wanted()) {
        // Nobody to hand it to: a catch-up after a lost connection starts from here, not before.
        this.enqueue(async () => void (this.lastSeen = new Date()));
      } else if (own) {
        this.enqueue(async () => this.handOutEvent(own));
      } else {
        this.enqueue(() => this.handOut(client, `id = $1`, [id]));
      }
    });
    await client.query(`listen ${EVENT_CHANNEL}; listen ${SHARED_CACHE_CHANNEL}`);
    this.client = client;
    // A transaction may commit a little after its created_at: look back a few seconds.
    if (catchUp)
      this.enqueue(() => this.handOut(client, `created_at > $1::timestamptz - interval '10 seconds'`, [this.lastSeen]));
  }

  private lost(client: Client, err?: Error): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    this.emit('cacheChanged', null);
    this.log.warn({ err }, 'event listener connection lost; reconnecting');
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    const attempt = (delay: number) => {
      this.retry = setTimeout(() => {
        this.connect(true).catch((error) => {
          this.log.warn({ err: error }, 'event listener reconnect failed');
          attempt(Math.min(delay * 2, 10_000));
        });
      }, delay);
    };
    attempt(100);
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((err) => this.log.error({ err }, 'event dispatch failed'));
  }

  private async handOut(client: Client, where: string, params: unknown[]): Promise<void> {
    const { rows } = await client.query<StoredEventRow>(
      `select ${STORED_EVENT_COLUMNS} from event where ${where} order by created_at, seq`,
      params,
    );
    for (const row of rows) this.handOutEvent(storedEvent(row));
  }

  private handOutEvent(event: StoredEvent): void {
    if (this.seen.has(event.id)) return;
    this.remember(event);
    this.emit('event', event);
  }

  private remember(event: StoredEvent): void {
    this.seen.add(event.id);
    if (event.createdAt > this.lastSeen) this.lastSeen = event.createdAt;
    // Enough to cover a catch-up window; the oldest ids go first (a Set iterates in insertion order).
    if (this.seen.size > 50_000) this.seen.delete(this.seen.values().next().value!);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.queue;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
