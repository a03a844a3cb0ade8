import { randomBytes } from 'node:crypto';
import type { Tx, Values } from '../../kernel/db/db';
import { seal, unseal } from '../../kernel/crypto/seal';
import { AppError } from '../../kernel/errors/app-error';
import type { Consumer } from '../../kernel/events/consumers';
import { addJobs, queueOf } from '../../kernel/jobs/queue';
import { TOPICS, type Topic } from '../events/event.topics';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { isAdmin } from '../identity/viewer';
import { checkEndpoint } from './webhook.endpoint';
import { DELIVERY_QUEUES_PER_ENDPOINT, MAX_TOPICS } from './webhook.limits';
import {
  Webhook,
  WebhookDelivery,
  type DeliveryStatus,
  type WebhookDeliveryRow,
  type WebhookRow,
} from './webhook.entities';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

const SECRET_PURPOSE = 'webhook-secret';

/** A Standard Webhooks secret: `whsec_` and the standard base64 of 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const unsealSecret = (serverSecret: string, sealed: string) => unseal(serverSecret, SECRET_PURPOSE, sealed);

export const webhookSecret = (serverSecret: string, webhook: Pick<WebhookRow, 'secretSealed'>) =>
  unsealSecret(serverSecret, webhook.secretSealed);

/**
 * The secrets deliveries are signed with, sealed: the current one, and the previous one while its grace period lasts.
 */
export const signingSecretsSealed = (
  webhook: Pick<WebhookRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] =>
  webhook.previousSecretSealed && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now
    ? [webhook.secretSealed, webhook.previousSecretSealed]
    : [webhook.secretSealed];

export const sealSecret = (serverSecret: string, secret: string) => seal(serverSecret, SECRET_PURPOSE, secret);

// Webhooks are the organization's integrations: ADMIN manages them; to a USER they do not exist.
function requireAdmin(ctx: Pick<Ctx, 'viewer'>): void {
  if (!isAdmin(ctx.viewer)) throw AppError.forbidden('Only an ADMIN may manage webhooks');
}

async function findWebhook(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null;
  const [webhook] = await ctx.db.records(Webhook, 'select * from webhook where id = ? and organization_id = ?', [
    id,
    ctx.viewer.organizationId,
  ]);
  return webhook ?? null;
}

async function requireWebhook(ctx: Ctx, id: string): Promise<WebhookRow> {
  requireAdmin(ctx);
  const webhook = await findWebhook(ctx, id);
  if (!webhook) throw AppError.notFound('Webhook');
  return webhook;
}

async function checkInput(
  ctx: Ctx,
  check: InputCheck,
  input: { endpoint?: string | null; topics?: readonly Topic[] | null },
) {
  if (input.endpoint != null) {
    await checkEndpoint(check, ['endpoint'], input.endpoint, {
      allowPrivate: ctx.settings.webhooks.allowPrivate,
      resolve: ctx.settings.resolveHost,
    });
  }
  if (input.topics != null) {
    check.count(['topics'], input.topics as Topic[], { min: 1, max: MAX_TOPICS });
    if (new Set(input.topics).size !== input.topics.length) check.add(['topics'], 'A topic appears twice', 'INVALID');
  }
}

export async function getWebhook(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<WebhookRow | null> {
  requireAdmin(ctx);
  return findWebhook(ctx, id);
}

export async function listWebhooks(
  ctx: Ctx,
  args: PageArgs & { topic?: Topic | null },
): Promise<Connection<WebhookRow>> {
  requireAdmin(ctx);
  const params: unknown[] = [ctx.viewer.organizationId];
  if (args.topic) params.push(args.topic);
  return paginate(
    {
      db: ctx.db,
      entity: Webhook,
      sql: `select w.* from webhook w where w.organization_id = ?${args.topic ? ' and ? = any(w.topics)' : ''}`,
      params,
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'ASC' },
  );
}

export async function createWebhook(
  ctx: Ctx,
  input: { endpoint: string; topics: readonly Topic[] },
): Promise<{ webhook: WebhookRow; secret: string }> {
  requireAdmin(ctx);
  const check = new InputCheck();
  await checkInput(ctx, check, input);
  check.done();
  const secret = newSecret();
  const [webhook] = await ctx.db.transaction((tx) =>
    tx.insert(Webhook, [
      {
        organization: ctx.viewer.organizationId,
        endpoint: input.endpoint,
        topics: [...input.topics],
        secretSealed: sealSecret(ctx.settings.secret, secret),
        previousSecretSealed: null,
        previousSecretExpiresAt: null,
        createdBy: ctx.viewer.userId,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      },
    ]),
  );
  return { webhook, secret };
}

export async function updateWebhook(
  ctx: Ctx,
  id: string,
  input: { endpoint?: string | null; topics?: readonly Topic[] | null; enabled?: boolean | null },
): Promise<WebhookRow> {
  const webhook = await requireWebhook(ctx, id);
  const check = new InputCheck();
  for (const key of ['endpoint', 'topics', 'enabled'] as const)
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  await checkInput(ctx, check, input);
  check.done();
  // Only what differs is written (and `updatedAt` only then).
  const changes: Values<Webhook> = {};
  if (input.endpoint != null && input.endpoint !== webhook.endpoint) changes.endpoint = input.endpoint;
  if (input.topics != null && JSON.stringify(input.topics) !== JSON.stringify(webhook.topics))
    changes.topics = [...input.topics];
  if (input.enabled === true && webhook.disabledAt) {
    changes.disabledAt = null;
    changes.disabledReason = null;
    changes.failingSince = null;
  }
  const disable = input.enabled === false && !webhook.disabledAt;
  if (disable) {
    changes.disabledAt = new Date();
    changes.disabledReason = 'Disabled by an administrator';
  }
  if (Object.keys(changes).length === 0) return webhook;
  return ctx.db.transaction(async (tx) => {
    if (disable) await failPending(tx, webhook.id, 'The endpoint was disabled');
    return tx.update(Webhook, webhook.id, changes);
  });
}

export async function deleteWebhook(ctx: Ctx, id: string): Promise<string> {
  const webhook = await requireWebhook(ctx, id);
  await ctx.db.transaction((tx) => tx.execute('delete from webhook where id = ?', [webhook.id]));
  return id;
}

export type RevealedSecret = { webhook: WebhookRow; secret: string };

export async function revealSecret(ctx: Ctx, id: string): Promise<RevealedSecret | null> {
  const webhook = await getWebhook(ctx, id);
  return webhook && { webhook, secret: webhookSecret(ctx.settings.secret, webhook) };
}

/** A new secret; the one it replaces keeps signing (second signature) for the grace period. */
export async function rotateSecret(ctx: Ctx, id: string): Promise<{ webhook: WebhookRow; secret: string }> {
  const webhook = await requireWebhook(ctx, id);
  const secret = newSecret();
  const rotated = await ctx.db.transaction((tx) =>
    tx.update(Webhook, webhook.id, {
      previousSecretSealed: webhook.secretSealed,
      previousSecretExpiresAt: new Date(Date.now() + ctx.settings.webhooks.secretGraceMs),
      secretSealed: sealSecret(ctx.settings.secret, secret),
    }),
  );
  return { webhook: rotated, secret };
}

export async function listDeliveries(
  ctx: Ctx,
  webhook: { id: string },
  args: PageArgs & { status?: DeliveryStatus | null },
): Promise<Connection<WebhookDeliveryRow>> {
  requireAdmin(ctx);
  const params: unknown[] = [webhook.id];
  if (args.status) params.push(args.status);
  return paginate(
    {
      db: ctx.db,
      entity: WebhookDelivery,
      sql: `select d.* from webhook_delivery d where d.webhook_id = ?${args.status ? ' and d.status = ?' : ''}`,
      params,
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'DESC' },
  );
}

/** The task that sends one delivery (webhook.delivery.ts). */
export const DELIVER_TASK = 'webhook.deliver';

/** How a delivery's job is named (its key), and its queues: this and the delivery's id, the endpoint's id. */
const JOB_PREFIX = 'wh:';

/** What names a delivery's job and its queue. */
export type QueuedDelivery = { id: string; webhookId: string; requestId: string | null };

/**
 * The bucket of an endpoint's queues a request's deliveries go through: one of DELIVERY_QUEUES_PER_ENDPOINT, so that
 * they go one at a time in the order they were queued (API-DECISIONS: ordered per request as far as retries allow),
 * side by side with those of requests of other buckets. None for an event about no request.
 */
const bucketOf = (requestId: string | null) =>
  requestId === null ? null : queueOf('', requestId, DELIVERY_QUEUES_PER_ENDPOINT);

/** The queue of a delivery's job: its endpoint's for its request's bucket. */
export const deliveryQueue = (delivery: Omit<QueuedDelivery, 'id'>): string | undefined => {
  const bucket = bucketOf(delivery.requestId);
  return bucket === null ? undefined : `${JOB_PREFIX}${delivery.webhookId}:${bucket}`;
};

/**
 * Adds deliveries' jobs in the caller's transaction, in one statement. The key is the delivery's, so adding it again
 * (a retry, a replay) moves its waiting job rather than adding a second.
 */
export const queueDeliveries = (tx: Tx, deliveries: readonly (QueuedDelivery & { runAt?: Date })[]) =>
  addJobs(
    tx,
    DELIVER_TASK,
    deliveries.map((delivery) => ({
      payload: { deliveryId: delivery.id },
      key: JOB_PREFIX + delivery.id,
      queue: deliveryQueue(delivery),
      runAt: delivery.runAt,
    })),
  );

/** Makes a delivery pending again, due now, whatever its status (a replay), with its job. */
export async function retryDelivery(ctx: Ctx, id: string, webhookId?: string | null): Promise<WebhookDeliveryRow> {
  requireAdmin(ctx);
  const [delivery] = isUuid(id)
    ? await ctx.db.records(
        WebhookDelivery,
        `select d.* from webhook_delivery d join webhook w on w.id = d.webhook_id
          where d.id = ? and w.organization_id = ?${webhookId ? ' and w.id = ?' : ''}`,
        webhookId ? [id, ctx.viewer.organizationId, webhookId] : [id, ctx.viewer.organizationId],
      )
    : [];
  if (!delivery) throw AppError.notFound('Delivery');
  return ctx.db.transaction(async (tx) => {
    const replayed = await tx.update(WebhookDelivery, delivery.id, {
      status: 'PENDING',
      nextAttemptAt: ctx.settings.clock.now(),
    });
    const [event] = await tx.rows<{ request_id: string | null }>('select request_id from event where id = ?', [
      delivery.eventId,
    ]);
    await queueDeliveries(tx, [
      { id: delivery.id, webhookId: delivery.webhook.id, requestId: event?.request_id ?? null },
    ]);
    return replayed;
  });
}

/**
 * Ends the pending deliveries of an endpoint that will not be called again, and cancels their waiting jobs (in one
 * statement: a failing endpoint may owe thousands).
 */
export async function failPending(tx: Tx, webhookId: string, reason: string): Promise<void> {
  await tx.execute(
    `with failed as (
       update webhook_delivery set status = 'FAILED', last_error = ?, next_attempt_at = null
        where webhook_id = ? and status = 'PENDING'
       returning id)
     select graphile_worker.remove_job(? || id) from failed`,
    [reason, webhookId, JOB_PREFIX],
  );
}

/**
 * Once an event committed: one delivery per enabled endpoint subscribed to its topic, each with its job. The unique
 * (webhook_id, event_id) keeps it one delivery per endpoint should this run twice for an event. Only endpoints that
 * existed when the event was written: one created while the event's job waited must not get what came before it.
 */
export const webhooksConsumer: Consumer = {
  name: 'webhooks',
  applies: (event) => (TOPICS as readonly string[]).includes(event.topic),
  run: async (tx, events) => {
    const queued = await tx.rows<{ id: string; webhook_id: string; event_id: string }>(
      `insert into webhook_delivery (id, organization_id, webhook_id, event_id, event_seq, topic, status, attempts, next_attempt_at, created_at, updated_at)
       select gen_random_uuid(), w.organization_id, w.id, e.id, e.seq, e.topic, 'PENDING', 0, e.created_at, e.created_at, e.created_at
         from event e
         join webhook w on w.organization_id = e.organization_id and w.disabled_at is null and e.topic = any(w.topics)
                         and w.created_at <= e.created_at
        where e.id = any(?::uuid[])
       on conflict (webhook_id, event_id) do nothing
       returning id, webhook_id, event_id`,
      [events.map((event) => event.id)],
      { prepared: true },
    );
    // One job per queue for the deliveries the events made, in the order of the events: a request's deliveries always
    // go through the same queue of an endpoint, and its events come in order.
    const order = new Map(events.map((event, index) => [event.id, index]));
    const requestOf = new Map(events.map((event) => [event.id, event.requestId]));
    queued.sort((a, b) => order.get(a.event_id)! - order.get(b.event_id)!);
    const byQueue = new Map<string, string[]>();
    const jobs: { payload: { deliveryIds: string[] }; queue?: string }[] = [];
    for (const delivery of queued) {
      const queue = deliveryQueue({
        webhookId: delivery.webhook_id,
        requestId: requestOf.get(delivery.event_id) ?? null,
      });
      let ids = queue && byQueue.get(queue);
      if (!ids) {
        // Deliveries of events about no request go side by side, each in a job of its own.
        ids = [];
        if (queue) byQueue.set(queue, ids);
        jobs.push({ payload: { deliveryIds: ids }, queue });
      }
      ids.push(delivery.id);
    }
    await addJobs(tx, DELIVER_TASK, jobs);
  },
};
