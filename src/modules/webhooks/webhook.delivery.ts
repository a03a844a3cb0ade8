import { systemClock, type Clock } from '../../kernel/clock';
import { PollingWorker } from '../../kernel/jobs/polling-worker';
import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Agent as HttpAgent } from 'node:http';
import type { WebhookSettings } from '../../config/config';
import { failPending, signingSecretsSealed, unsealSecret } from './webhook.service';
import { inTransaction } from '../../kernel/db/transaction';

/**
 * When a failed delivery is tried again, after its first, second... failure: about three days in
 * all (API-DECISIONS, Webhooks), then it is marked FAILED.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, ...Array<number>(7).fill(36_000_000)];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Largest part of an answer kept in the attempt log. */
const MAX_ERROR_LENGTH = 500;
/** Signing keys kept unsealed in memory, at most. */
const MAX_SIGNING_KEYS = 10_000;


export type DeliveryWorkerOptions = {
  orm: MikroORM;
  settings: WebhookSettings;
  /** The server secret the signing secrets are sealed with. */
  serverSecret: string;
  log: FastifyBaseLogger;
  clock?: Clock;
  /** DNS for delivery connections (a parameter, so tests can stage rebinding). */
  lookup?: LookupFunction;
  /** How often due retries are looked for, besides waking on every event. */
  pollMs?: number;
};

// Raw statements through MikroORM answer timestamps as strings.
type Claimed = {
  id: string;
  attempts: number;
  webhook_id: string;
  endpoint: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  event_id: string;
  topic: string;
  organization_id: string;
  created_at: string;
  data: Record<string, unknown>;
  updated: string[] | null;
};

type Outcome = { statusCode: number | null; error: string | null; latencyMs: number };

/**
 * Sends queued deliveries: claims due rows with FOR UPDATE SKIP LOCKED (so instances share the work
 * and never send one delivery twice at once), signs them per Standard Webhooks, posts them through an
 * agent that refuses private addresses at connect time, and records every attempt. A claim is a lease:
 * if the instance dies mid-send, the lease expires and another attempt follows (at least once).
 */
export class DeliveryWorker extends PollingWorker {
  private readonly clock: Clock;
  private agents?: Promise<{ http: HttpAgent; https: HttpAgent }>;
  private readonly signingKeys = new Map<string, Buffer>();
  /** Attempts this instance made since it started, by how they ended (/metrics). */
  readonly attemptsByOutcome: Record<'succeeded' | 'retrying' | 'failed', number> = { succeeded: 0, retrying: 0, failed: 0 };

  constructor(private readonly options: DeliveryWorkerOptions) {
    super(options.log, 'webhook delivery', options.settings.concurrency * 4, options.pollMs);
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Agents that check the address a connection goes to, after DNS, so a host that resolves privately
   * at delivery time is refused even if it resolved publicly when the endpoint was saved.
   */
  private connectionAgents(): Promise<{ http: HttpAgent; https: HttpAgent }> {
    // request-filtering-agent is published as an ES module only.
    this.agents ??= import('request-filtering-agent').then(({ RequestFilteringHttpAgent, RequestFilteringHttpsAgent }) => {
      const options = { keepAlive: true, allowPrivateIPAddress: this.options.settings.allowPrivate };
      return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
    });
    return this.agents;
  }

  /** Longer than any attempt can take, so a lease only lapses when its holder is gone. */
  private get leaseMs(): number {
    return this.options.settings.timeoutMs * 2 + 1_000;
  }

  /** Claims one batch of due deliveries and sends them; returns how many were attempted. */
  override async runOnce(): Promise<number> {
    const now = this.clock.now();
    const em = this.options.orm.em.fork();
    const claimed = await em.execute<Claimed[]>(
      `with due as (
         select id from webhook_delivery
          where status = 'PENDING' and next_attempt_at <= ? and (locked_until is null or locked_until < ?)
          order by event_seq
          limit ?
          for update skip locked)
       update webhook_delivery d set locked_until = ?
         from due, webhook w, event e
        where d.id = due.id and w.id = d.webhook_id and e.id = d.event_id
       returning d.id, d.attempts, w.id as webhook_id, w.endpoint, w.secret_sealed, w.previous_secret_sealed,
                 w.previous_secret_expires_at, e.id as event_id, e.topic, e.organization_id, e.created_at, e.data, e.updated`,
      [now, now, this.batch, new Date(now.getTime() + this.leaseMs)],
    );
    // One endpoint's deliveries go one after another, in event order; endpoints proceed in parallel.
    const byEndpoint = new Map<string, Claimed[]>();
    for (const row of claimed) byEndpoint.set(row.webhook_id, [...(byEndpoint.get(row.webhook_id) ?? []), row]);
    const queues = [...byEndpoint.values()];
    const workers = Array.from({ length: Math.min(this.options.settings.concurrency, queues.length) }, async () => {
      for (let queue = queues.shift(); queue; queue = queues.shift()) {
        // Each attempt is recorded while the next one is being sent; a record that fails leaves its
        // delivery leased, to be sent again when the lease lapses (at least once).
        let recorded = Promise.resolve();
        let failure: unknown;
        for (const row of queue) {
          const outcome = await this.send(row);
          recorded = recorded.then(() => this.record(row, outcome)).catch((err: unknown) => void (failure ??= err));
        }
        await recorded;
        if (failure) throw failure;
      }
    });
    await Promise.all(workers);
    return claimed.length;
  }

  /** A signing secret's HMAC key, by its sealed form: unsealed and decoded once. */
  private signingKey(sealed: string): Buffer {
    let key = this.signingKeys.get(sealed);
    if (!key) {
      if (this.signingKeys.size >= MAX_SIGNING_KEYS) this.signingKeys.clear();
      key = Buffer.from(unsealSecret(this.options.serverSecret, sealed).replace(/^whsec_/, ''), 'base64');
      this.signingKeys.set(sealed, key);
    }
    return key;
  }

  private async send(row: Claimed): Promise<Outcome> {
    const now = this.clock.now();
    const body = JSON.stringify({
      event_id: row.event_id,
      topic: row.topic,
      organization_id: row.organization_id,
      created_at: new Date(row.created_at).toISOString(),
      data: row.data,
      ...(row.updated ? { updated: row.updated } : {}),
    });
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const sealed = signingSecretsSealed(
      {
        secretSealed: row.secret_sealed,
        previousSecretSealed: row.previous_secret_sealed,
        previousSecretExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
      },
      now,
    );
    // Standard Webhooks: HMAC-SHA256 of "id.timestamp.body", one "v1,<base64>" per valid secret, space-separated.
    const signature = sealed
      .map((secret) => `v1,${createHmac('sha256', this.signingKey(secret)).update(`${row.event_id}.${timestamp}.`).update(body).digest('base64')}`)
      .join(' ');
    return this.post(await this.connectionAgents(), row.endpoint, body, {
      'content-type': 'application/json',
      'user-agent': 'Gather-Webhooks/1',
      'webhook-id': row.event_id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
  }

  private post(agents: { http: HttpAgent; https: HttpAgent }, endpoint: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    const started = process.hrtime.bigint();
    const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(endpoint);
      } catch {
        resolve({ statusCode: null, error: 'The endpoint is not a URL', latencyMs: 0 });
        return;
      }
      const secure = url.protocol === 'https:';
      const request = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: secure ? agents.https : agents.http,
          lookup: this.options.lookup,
          timeout: this.options.settings.timeoutMs,
        },
        (response: IncomingMessage) => {
          let excerpt = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (excerpt.length < MAX_ERROR_LENGTH) excerpt += chunk;
          });
          response.on('end', () => {
            const statusCode = response.statusCode ?? null;
            const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
            resolve({ statusCode, error: ok ? null : `HTTP ${statusCode}${excerpt ? `: ${excerpt.slice(0, MAX_ERROR_LENGTH)}` : ''}`, latencyMs: elapsed() });
          });
          response.on('error', (err) => resolve({ statusCode: response.statusCode ?? null, error: err.message, latencyMs: elapsed() }));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`No answer within ${this.options.settings.timeoutMs} ms`)));
      request.on('error', (err) => resolve({ statusCode: null, error: err.message, latencyMs: elapsed() }));
      request.end(body);
    });
  }

  /**
   * Logs the attempt and moves the delivery and its endpoint on, in one statement (one round trip);
   * an endpoint failing without a success for the whole period is then disabled, its queue ended.
   */
  private async record(row: Claimed, outcome: Outcome): Promise<void> {
    const now = this.clock.now();
    const succeeded = outcome.error === null;
    const attempts = row.attempts + 1;
    const status = succeeded ? 'SUCCEEDED' : attempts >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING';
    const next = status === 'PENDING' ? new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]) : null;
    const [webhook] = await this.options.orm.em.fork().execute<{ failing_since: string | null }[]>(
      `with attempt as (
         insert into webhook_attempt (id, organization_id, delivery_id, attempted_at, status_code, latency_ms, error) values (gen_random_uuid(), ?, ?, ?, ?, ?, ?)
       ), delivery as (
         update webhook_delivery set status = ?, attempts = ?, next_attempt_at = ?, locked_until = null, last_status_code = ?, last_error = ?, updated_at = ?
          where id = ?
       )
       update webhook set failing_since = case when ?::boolean then null else coalesce(failing_since, ?) end
        where id = ? and (not ?::boolean or failing_since is not null)
       returning failing_since`,
      [row.organization_id, row.id, now, outcome.statusCode, outcome.latencyMs, outcome.error, status, attempts, next, outcome.statusCode, outcome.error, now, row.id, succeeded, now, row.webhook_id, succeeded],
    );
    this.attemptsByOutcome[status === 'SUCCEEDED' ? 'succeeded' : status === 'PENDING' ? 'retrying' : 'failed']++;
    const disableAfterMs = this.options.settings.disableAfterMs;
    if (succeeded || !webhook?.failing_since || now.getTime() - new Date(webhook.failing_since).getTime() < disableAfterMs) return;
    const reason = `Every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (since ${new Date(webhook.failing_since).toISOString()}); last error: ${outcome.error}`;
    await inTransaction(this.options.orm.em.fork(), async (tx) => {
      await tx.execute(`update webhook set disabled_at = ?, disabled_reason = ?, updated_at = ? where id = ? and disabled_at is null`, [now, reason, now, row.webhook_id]);
      await failPending(tx, row.webhook_id, 'The endpoint was disabled');
    });
  }

  protected override async release(): Promise<void> {
    const agents = await this.agents;
    agents?.http.destroy();
    agents?.https.destroy();
  }

}
