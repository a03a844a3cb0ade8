import { systemClock, type Clock } from '../../kernel/clock';
import { PollingWorker } from '../../kernel/jobs/polling-worker';
import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Agent as HttpAgent } from 'node:http';
import type { WebhookSettings } from '../../config/config';
import type { Db } from '../../kernel/db/db';
import { failPending, signingSecretsSealed, unsealSecret } from './webhook.service';

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
  db: Db;
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

type Claimed = {
  id: string;
  attempts: number;
  webhook_id: string;
  endpoint: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  topic: string;
  organization_id: string;
  created_at: Date;
  data: Record<string, unknown>;
  updated: string[] | null;
};

type Outcome = { statusCode: number | null; error: string | null; latencyMs: number };

/** An attempt that ended, to be recorded with the others of its round. */
type Finished = { row: Claimed; outcome: Outcome; at: Date };

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
  /** Set by stop(): the round under way claims no further batch. (Rounds run without start() in tests.) */
  private stopping = false;
  /** Attempts this instance made since it started, by how they ended (/metrics). */
  readonly attemptsByOutcome: Record<'succeeded' | 'retrying' | 'failed', number> = {
    succeeded: 0,
    retrying: 0,
    failed: 0,
  };

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
    this.agents ??= import('request-filtering-agent').then(
      ({ RequestFilteringHttpAgent, RequestFilteringHttpsAgent }) => {
        const options = { keepAlive: true, allowPrivateIPAddress: this.options.settings.allowPrivate };
        return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
      },
    );
    return this.agents;
  }

  /** Longer than any attempt can take, so a lease only lapses when its holder is gone. */
  private get leaseMs(): number {
    return this.options.settings.timeoutMs * 2 + 1_000;
  }

  /** Claims a batch of due deliveries (leased to this instance), oldest events first. */
  private claim(): Promise<Claimed[]> {
    const now = this.clock.now();
    // Prepared: every instance runs it each second (and after every event that queued deliveries), so
    // an idle instance's CPU is mostly its claims, charged to whatever comes next.
    return this.options.db.transaction((tx) =>
      tx.rows<Claimed>(
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
        { prepared: true },
      ),
    );
  }

  /**
   * Claims batches of due deliveries and sends them, one batch after another, until none is due;
   * returns how many were attempted. The next batch is claimed while the last sends of the current
   * one are under way (its rows come later in each endpoint's order, and wait for the current batch).
   * A lease runs from its claim: behind an endpoint that times out, a row far down the queue can
   * outlive it (as a batch's last rows always could), and another instance sends it too: at least once.
   */
  override async runOnce(): Promise<number> {
    // Attempts are recorded while the next ones are sent: whatever ended while one write was under
    // way goes in the next, one statement for all (a commit per batch, not per delivery). A write
    // that fails leaves its deliveries leased, to be sent again when the lease lapses (at least once).
    const finished: Finished[] = [];
    let writing: Promise<void> | null = null;
    let failure: unknown;
    const writeAll = async () => {
      while (finished.length) await this.record(finished.splice(0)).catch((err: unknown) => void (failure ??= err));
      writing = null;
    };
    const concurrency = this.options.settings.concurrency;
    let attempted = 0;
    for (let batch = await this.claim(); batch.length;) {
      attempted += batch.length;
      // One endpoint's deliveries go one after another, in event order; endpoints proceed in parallel.
      const byEndpoint = new Map<string, Claimed[]>();
      for (const row of batch) {
        const queue = byEndpoint.get(row.webhook_id);
        if (queue) queue.push(row);
        else byEndpoint.set(row.webhook_id, [row]);
      }
      const queues = [...byEndpoint.values()];
      let unsent = batch.length;
      let next: Promise<Claimed[]> | undefined;
      const workers = Array.from({ length: Math.min(concurrency, queues.length) }, async () => {
        for (let queue = queues.shift(); queue; queue = queues.shift()) {
          for (const row of queue) {
            if (--unsent < concurrency * 2 && !this.stopping) next ??= this.claim();
            finished.push({ row, outcome: await this.send(row), at: this.clock.now() });
            writing ??= writeAll();
          }
        }
      });
      try {
        await Promise.all(workers);
      } finally {
        // Claimed rows are sent even when stopping: they would otherwise wait for their lease.
        batch = next ? await next : [];
      }
    }
    await writing;
    if (failure) throw failure;
    return attempted;
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
      created_at: row.created_at.toISOString(),
      data: row.data,
      ...(row.updated ? { updated: row.updated } : {}),
    });
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const sealed = signingSecretsSealed(
      {
        secretSealed: row.secret_sealed,
        previousSecretSealed: row.previous_secret_sealed,
        previousSecretExpiresAt: row.previous_secret_expires_at,
      },
      now,
    );
    // Standard Webhooks: HMAC-SHA256 of "id.timestamp.body", one "v1,<base64>" per valid secret, space-separated.
    const signature = sealed
      .map(
        (secret) =>
          `v1,${createHmac('sha256', this.signingKey(secret)).update(`${row.event_id}.${timestamp}.`).update(body).digest('base64')}`,
      )
      .join(' ');
    return this.post(await this.connectionAgents(), row.endpoint, body, {
      'content-type': 'application/json',
      'user-agent': 'Gather-Webhooks/1',
      'webhook-id': row.event_id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
  }

  private post(
    agents: { http: HttpAgent; https: HttpAgent },
    endpoint: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<Outcome> {
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
            resolve({
              statusCode,
              error: ok ? null : `HTTP ${statusCode}${excerpt ? `: ${excerpt.slice(0, MAX_ERROR_LENGTH)}` : ''}`,
              latencyMs: elapsed(),
            });
          });
          response.on('error', (err) =>
            resolve({ statusCode: response.statusCode ?? null, error: err.message, latencyMs: elapsed() }),
          );
        },
      );
      request.on('timeout', () => request.destroy(new Error(`No answer within ${this.options.settings.timeoutMs} ms`)));
      request.on('error', (err) => resolve({ statusCode: null, error: err.message, latencyMs: elapsed() }));
      request.end(body);
    });
  }

  /**
   * Logs a batch of attempts and moves their deliveries and endpoints on, in one statement (one round
   * trip, one commit); an endpoint whose last attempt failed, without a success for the whole period,
   * is then disabled, its queue ended.
   */
  private async record(batch: Finished[]): Promise<void> {
    const attempts = batch.map(({ row, outcome, at }) => {
      const succeeded = outcome.error === null;
      const count = row.attempts + 1;
      const status = succeeded ? 'SUCCEEDED' : count >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING';
      return {
        delivery_id: row.id,
        organization_id: row.organization_id,
        at,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        status,
        attempts: count,
        next_attempt_at: status === 'PENDING' ? new Date(at.getTime() + RETRY_DELAYS_MS[count - 1]) : null,
      };
    });
    // Per endpoint, in the order of its attempts: a success clears failing_since, a failure starts it
    // unless one already runs; what the last success leaves is the first failure after it.
    const endpoints = new Map<
      string,
      {
        webhook_id: string;
        last_succeeded: boolean;
        any_succeeded: boolean;
        failing_from: Date | null;
        last_error: string | null;
      }
    >();
    for (const { row, outcome, at } of batch) {
      const endpoint = endpoints.get(row.webhook_id) ?? {
        webhook_id: row.webhook_id,
        last_succeeded: false,
        any_succeeded: false,
        failing_from: null,
        last_error: null,
      };
      endpoints.set(row.webhook_id, endpoint);
      if (outcome.error === null)
        Object.assign(endpoint, { last_succeeded: true, any_succeeded: true, failing_from: null });
      else
        Object.assign(endpoint, {
          last_succeeded: false,
          failing_from: endpoint.failing_from ?? at,
          last_error: outcome.error,
        });
    }
    const updated = await this.options.db.transaction((tx) =>
      tx.rows<{ id: string; failing_since: Date | null }>(
        `with finished as (
         select * from json_to_recordset(?::json) as f(delivery_id uuid, organization_id uuid, at timestamptz, status_code int, latency_ms int, error text, status text, attempts int, next_attempt_at timestamptz)
       ), attempt as (
         insert into webhook_attempt (id, organization_id, delivery_id, attempted_at, status_code, latency_ms, error)
         select gen_random_uuid(), f.organization_id, f.delivery_id, f.at, f.status_code, f.latency_ms, f.error
           from finished f join webhook_delivery d on d.id = f.delivery_id
       ), delivery as (
         update webhook_delivery d set status = f.status, attempts = f.attempts, next_attempt_at = f.next_attempt_at, locked_until = null,
                last_status_code = f.status_code, last_error = f.error, updated_at = f.at
           from finished f
          where d.id = f.delivery_id
       )
       update webhook w set failing_since = case when e.last_succeeded then null when e.any_succeeded then e.failing_from else coalesce(w.failing_since, e.failing_from) end
         from json_to_recordset(?::json) as e(webhook_id uuid, last_succeeded boolean, any_succeeded boolean, failing_from timestamptz)
        where w.id = e.webhook_id and (not e.last_succeeded or w.failing_since is not null)
       returning w.id, w.failing_since`,
        [JSON.stringify(attempts), JSON.stringify([...endpoints.values()])],
      ),
    );
    for (const attempt of attempts)
      this.attemptsByOutcome[
        attempt.status === 'SUCCEEDED' ? 'succeeded' : attempt.status === 'PENDING' ? 'retrying' : 'failed'
      ]++;
    const now = this.clock.now();
    const disableAfterMs = this.options.settings.disableAfterMs;
    for (const webhook of updated) {
      const endpoint = endpoints.get(webhook.id)!;
      if (
        endpoint.last_succeeded ||
        !webhook.failing_since ||
        now.getTime() - webhook.failing_since.getTime() < disableAfterMs
      )
        continue;
      const reason = `Every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (since ${webhook.failing_since.toISOString()}); last error: ${endpoint.last_error}`;
      await this.options.db.transaction(async (tx) => {
        await tx.execute(
          `update webhook set disabled_at = ?, disabled_reason = ?, updated_at = ? where id = ? and disabled_at is null`,
          [now, reason, now, webhook.id],
        );
        await failPending(tx, webhook.id, 'The endpoint was disabled');
      });
    }
  }

  override start(): void {
    this.stopping = false;
    super.start();
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    await super.stop();
  }

  protected override async release(): Promise<void> {
    const agents = await this.agents;
    agents?.http.destroy();
    agents?.https.destroy();
  }
}
