import { createHmac } from 'node:crypto';
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookSettings } from '../../config/config';
import type { Clock } from '../../kernel/clock';
import type { Db } from '../../kernel/db/db';
import type { TaskHandler } from '../../kernel/jobs/queue';
import { DELIVER_TASK, failPending, queueDeliveries, signingSecretsSealed, unsealSecret } from './webhook.service';

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

/** Attempts an instance made since it started, by how they ended (/metrics). */
export type AttemptCounts = Record<'succeeded' | 'retrying' | 'failed', number>;

export const attemptCounts = (): AttemptCounts => ({ succeeded: 0, retrying: 0, failed: 0 });

type Agents = { http: HttpAgent; https: HttpAgent };

/** The connections deliveries go out on, kept alive between them; the app destroys them once its jobs stopped. */
export type DeliveryAgents = { get(): Promise<Agents>; destroy(): Promise<void> };

/**
 * Agents that check the address a connection goes to, after DNS, so a host that resolves privately
 * at delivery time is refused even if it resolved publicly when the endpoint was saved.
 */
export function deliveryAgents(allowPrivate: boolean): DeliveryAgents {
  let agents: Promise<Agents> | undefined;
  return {
    // request-filtering-agent is published as an ES module only.
    get: () =>
      (agents ??= import('request-filtering-agent').then(
        ({ RequestFilteringHttpAgent, RequestFilteringHttpsAgent }) => {
          const options = { keepAlive: true, allowPrivateIPAddress: allowPrivate };
          return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
        },
      )),
    async destroy() {
      const made = await agents;
      made?.http.destroy();
      made?.https.destroy();
    },
  };
}

export type WebhookTaskDeps = {
  db: Db;
  settings: WebhookSettings;
  /** The server secret the signing secrets are sealed with. */
  serverSecret: string;
  clock: Clock;
  /** DNS for delivery connections (a parameter, so tests can stage rebinding). */
  lookup?: LookupFunction;
  agents: DeliveryAgents;
  attempts: AttemptCounts;
};

/** A pending delivery with what its attempt needs of its endpoint and event. */
type Loaded = {
  id: string;
  attempts: number;
  webhook_id: string;
  endpoint: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  request_id: string | null;
  topic: string;
  organization_id: string;
  created_at: Date;
  data: Record<string, unknown>;
  updated: string[] | null;
};

type Outcome = { statusCode: number | null; error: string | null; latencyMs: number };

/** An attempt made, to record: the delivery, how its attempt ended and when. */
type Attempt = { row: Loaded; outcome: Outcome; at: Date };

/**
 * The `webhook.deliver` task: one attempt of each delivery of its job (those an endpoint got from a batch of events,
 * or one retried), one after the other, each signed per Standard Webhooks and posted through an agent that refuses
 * private addresses at connect time; then all recorded at once. A failure adds the next attempt's job itself, on
 * RETRY_DELAYS_MS. A job run again after a crash finds its attempt recorded (nothing more happens) or not (it posts
 * again: at least once, with the same webhook-id).
 */
export function webhookTasks(deps: WebhookTaskDeps): Record<string, TaskHandler> {
  const deliveries = new Deliveries(deps);
  return {
    [DELIVER_TASK]: ({ deliveryId, deliveryIds }: { deliveryId?: string; deliveryIds?: string[] }) =>
      deliveries.deliver(deliveryIds ?? [deliveryId!]),
  };
}

class Deliveries {
  private readonly signingKeys = new Map<string, Buffer>();

  constructor(private readonly options: WebhookTaskDeps) {}

  async deliver(ids: readonly string[]): Promise<void> {
    const { db, clock } = this.options;
    const rows = await db.rows<Loaded>(
      `select d.id, d.attempts, w.id as webhook_id, w.endpoint, w.secret_sealed, w.previous_secret_sealed,
              w.previous_secret_expires_at, e.id as event_id, e.request_id, e.topic, e.organization_id, e.created_at, e.data, e.updated
         from webhook_delivery d join webhook w on w.id = d.webhook_id join event e on e.id = d.event_id
        where d.id = any(?::uuid[]) and d.status = 'PENDING'`,
      [ids],
      { prepared: true },
    );
    // Those settled since their job was added (a success recorded before a crash, a disabled endpoint), or deleted,
    // are not there; the others go in the order of their jobs.
    const byId = new Map(rows.map((row) => [row.id, row]));
    const attempts: Attempt[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row) attempts.push({ row, outcome: await this.send(row), at: clock.now() });
    }
    await this.record(attempts);
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

  private async send(row: Loaded): Promise<Outcome> {
    const now = this.options.clock.now();
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
    return this.post(await this.options.agents.get(), row.endpoint, body, {
      'content-type': 'application/json',
      'user-agent': 'Gather-Webhooks/1',
      'webhook-id': row.event_id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
  }

  private post(agents: Agents, endpoint: string, body: string, headers: Record<string, string>): Promise<Outcome> {
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
   * Logs the attempts and moves the deliveries and their endpoint on, in one transaction with the next attempts' jobs.
   * It records only the attempt a delivery still waits for: a run of a job that another run overtook (both posted)
   * records nothing. The endpoint's failing_since ends with a success and starts with the first failure after it,
   * unless one runs; an endpoint failing for `disableAfterMs` is disabled, its deliveries ended.
   */
  private async record(attempts: readonly Attempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const settled = attempts.map(({ row, outcome, at }) => {
      const count = row.attempts + 1;
      const succeeded = outcome.error === null;
      const status = succeeded ? 'SUCCEEDED' : count >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING';
      return {
        row,
        outcome,
        at,
        count,
        status,
        retryAt: status === 'PENDING' ? new Date(at.getTime() + RETRY_DELAYS_MS[count - 1]) : null,
      };
    });
    await this.options.db.transaction(async (tx) => {
      const [recorded] = await tx.rows<{ failing_since: Date | null; ids: string[] | null }>(
        `with input as (
           select * from unnest(?::uuid[], ?::int[], ?::text[], ?::timestamptz[], ?::int[], ?::text[], ?::int[], ?::timestamptz[])
                    with ordinality as i (id, attempts, status, next_attempt_at, status_code, error, latency_ms, at, ord)
         ), delivery as (
           update webhook_delivery d
              set status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
                  last_status_code = i.status_code, last_error = i.error, updated_at = i.at
             from input i
            where d.id = i.id and d.status = 'PENDING' and d.attempts = i.attempts - 1
           returning d.id, d.organization_id, d.webhook_id, i.ord, i.error is null as ok, i.at, i.status_code, i.latency_ms, i.error
         ), attempt as (
           insert into webhook_attempt (id, organization_id, delivery_id, attempted_at, status_code, latency_ms, error)
           select gen_random_uuid(), organization_id, id, at, status_code, latency_ms, error from delivery
         ), outcome as (
           select webhook_id, bool_or(ok) as any_ok, (array_agg(ok order by ord desc))[1] as last_ok,
                  min(at) filter (where not ok and ord > coalesce((select max(ord) from delivery where ok), 0)) as first_failure
             from delivery group by webhook_id
         ), endpoint as (
           update webhook w
              set failing_since = case when o.last_ok then null
                                       else coalesce(case when not o.any_ok then w.failing_since end, o.first_failure) end
             from outcome o
            where w.id = o.webhook_id and (not o.last_ok or w.failing_since is not null)
           returning w.failing_since
         )
         select (select failing_since from endpoint limit 1) as failing_since, (select array_agg(id) from delivery) as ids`,
        [
          settled.map((one) => one.row.id),
          settled.map((one) => one.count),
          settled.map((one) => one.status),
          settled.map((one) => one.retryAt),
          settled.map((one) => one.outcome.statusCode),
          settled.map((one) => one.outcome.error),
          settled.map((one) => one.outcome.latencyMs),
          settled.map((one) => one.at),
        ],
        { prepared: true },
      );
      const ids = new Set(recorded.ids ?? []);
      const done = settled.filter((one) => ids.has(one.row.id));
      if (done.length === 0) return;
      tx.afterCommit(() => {
        for (const one of done)
          this.options.attempts[
            one.status === 'SUCCEEDED' ? 'succeeded' : one.status === 'PENDING' ? 'retrying' : 'failed'
          ]++;
      });
      const { disableAfterMs } = this.options.settings;
      const last = done[done.length - 1];
      const failingSince = recorded.failing_since;
      if (last.outcome.error !== null && failingSince && last.at.getTime() - failingSince.getTime() >= disableAfterMs) {
        const reason = `Every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (since ${failingSince.toISOString()}); last error: ${last.outcome.error}`;
        await tx.execute(
          `update webhook set disabled_at = ?, disabled_reason = ?, updated_at = ? where id = ? and disabled_at is null`,
          [last.at, reason, last.at, last.row.webhook_id],
        );
        await failPending(tx, last.row.webhook_id, 'The endpoint was disabled');
      } else {
        await queueDeliveries(
          tx,
          done
            .filter((one) => one.retryAt)
            .map((one) => ({
              id: one.row.id,
              webhookId: one.row.webhook_id,
              requestId: one.row.request_id,
              runAt: one.retryAt!,
            })),
        );
      }
    });
  }
}
