import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { seal, unseal } from '../../kernel/crypto/seal';
import { AppError } from '../../kernel/errors/app-error';
import type { EmitHook } from '../../kernel/events/outbox';
import type { Topic } from '../events/event.topics';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { isAdmin } from '../identity/viewer';
import { checkEndpoint } from './webhook.endpoint';
import { MAX_TOPICS } from './webhook.limits';
import {
  Webhook,
  WebhookDelivery,
  type DeliveryStatus,
  type WebhookDeliveryRow,
  type WebhookRow,
} from './webhook.entities';

type Ctx = Pick<GraphQLContext, 'em' | 'viewer' | 'settings'>;

const SECRET_PURPOSE = 'webhook-secret';

/** A Standard Webhooks secret: `whsec_` and the standard base64 of 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const unsealSecret = (serverSecret: string, sealed: string) => unseal(serverSecret, SECRET_PURPOSE, sealed);

export const webhookSecret = (serverSecret: string, webhook: Webhook) =>
  unsealSecret(serverSecret, webhook.secretSealed);

/**
 * The secrets deliveries are signed with, sealed: the current one, and the previous one while its grace period lasts.
 */
export const signingSecretsSealed = (
  webhook: Pick<Webhook, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] =>
  webhook.previousSecretSealed && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now
    ? [webhook.secretSealed, webhook.previousSecretSealed]
    : [webhook.secretSealed];

export const sealSecret = (serverSecret: string, secret: string) => seal(serverSecret, SECRET_PURPOSE, secret);

// Webhooks are the organization's integrations: ADMIN manages them; to a USER they do not exist.
function requireAdmin(ctx: Ctx): void {
  if (!isAdmin(ctx.viewer)) throw AppError.forbidden('Only an ADMIN may manage webhooks');
}

async function requireWebhook(ctx: Ctx, id: string): Promise<Webhook> {
  requireAdmin(ctx);
  const webhook = isUuid(id) ? await ctx.em.findOne(Webhook, { id, organization: ctx.viewer.organizationId }) : null;
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

export async function getWebhook(ctx: Ctx, id: string): Promise<Webhook | null> {
  requireAdmin(ctx);
  return isUuid(id) ? ctx.em.findOne(Webhook, { id, organization: ctx.viewer.organizationId }) : null;
}

export async function listWebhooks(
  ctx: Ctx,
  args: PageArgs & { topic?: Topic | null },
): Promise<Connection<WebhookRow>> {
  requireAdmin(ctx);
  const qb = ctx.em.createQueryBuilder(Webhook, 'w').where({ organization: ctx.viewer.organizationId });
  if (args.topic) qb.andWhere('? = any(w.topics)', [args.topic]);
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'ASC' });
}

export async function createWebhook(
  ctx: Ctx,
  input: { endpoint: string; topics: readonly Topic[] },
): Promise<{ webhook: Webhook; secret: string }> {
  requireAdmin(ctx);
  const check = new InputCheck();
  await checkInput(ctx, check, input);
  check.done();
  const secret = newSecret();
  const webhook = ctx.em.create(Webhook, {
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
  });
  await ctx.em.flush();
  return { webhook, secret };
}

export async function updateWebhook(
  ctx: Ctx,
  id: string,
  input: { endpoint?: string | null; topics?: readonly Topic[] | null; enabled?: boolean | null },
): Promise<Webhook> {
  const webhook = await requireWebhook(ctx, id);
  const check = new InputCheck();
  for (const key of ['endpoint', 'topics', 'enabled'] as const)
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  await checkInput(ctx, check, input);
  check.done();
  if (input.endpoint != null) webhook.endpoint = input.endpoint;
  if (input.topics != null) webhook.topics = [...input.topics];
  if (input.enabled === true && webhook.disabledAt) {
    webhook.disabledAt = null;
    webhook.disabledReason = null;
    webhook.failingSince = null;
  }
  if (input.enabled === false && !webhook.disabledAt) {
    webhook.disabledAt = new Date();
    webhook.disabledReason = 'Disabled by an administrator';
    await failPending(ctx.em, webhook.id, 'The endpoint was disabled');
  }
  await ctx.em.flush();
  return webhook;
}

export async function deleteWebhook(ctx: Ctx, id: string): Promise<string> {
  const webhook = await requireWebhook(ctx, id);
  await ctx.em.remove(webhook).flush();
  return id;
}

export type RevealedSecret = { webhook: Webhook; secret: string };

export async function revealSecret(ctx: Ctx, id: string): Promise<RevealedSecret | null> {
  const webhook = await getWebhook(ctx, id);
  return webhook && { webhook, secret: webhookSecret(ctx.settings.secret, webhook) };
}

/** A new secret; the one it replaces keeps signing (second signature) for the grace period. */
export async function rotateSecret(ctx: Ctx, id: string): Promise<{ webhook: Webhook; secret: string }> {
  const webhook = await requireWebhook(ctx, id);
  const secret = newSecret();
  webhook.previousSecretSealed = webhook.secretSealed;
  webhook.previousSecretExpiresAt = new Date(Date.now() + ctx.settings.webhooks.secretGraceMs);
  webhook.secretSealed = sealSecret(ctx.settings.secret, secret);
  await ctx.em.flush();
  return { webhook, secret };
}

export async function listDeliveries(
  ctx: Ctx,
  webhook: { id: string },
  args: PageArgs & { status?: DeliveryStatus | null },
): Promise<Connection<WebhookDeliveryRow>> {
  requireAdmin(ctx);
  const qb = ctx.em
    .createQueryBuilder(WebhookDelivery, 'd')
    .where({ webhook: webhook.id, ...(args.status ? { status: args.status } : {}) });
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'DESC' });
}

/** Makes a delivery pending again, due now, whatever its status (a replay). */
export async function retryDelivery(ctx: Ctx, id: string, webhookId?: string | null): Promise<WebhookDelivery> {
  requireAdmin(ctx);
  const delivery = isUuid(id)
    ? await ctx.em.findOne(WebhookDelivery, {
        id,
        webhook: { organization: ctx.viewer.organizationId, ...(webhookId ? { id: webhookId } : {}) },
      })
    : null;
  if (!delivery) throw AppError.notFound('Delivery');
  delivery.status = 'PENDING';
  delivery.nextAttemptAt = new Date();
  delivery.lockedUntil = null;
  await ctx.em.flush();
  return delivery;
}

/** Ends the pending deliveries of an endpoint that will not be called again. */
export async function failPending(em: EntityManager, webhookId: string, reason: string): Promise<void> {
  await em.nativeUpdate(
    WebhookDelivery,
    { webhook: webhookId, status: 'PENDING' },
    { status: 'FAILED', lastError: reason, nextAttemptAt: null, lockedUntil: null },
  );
}

/**
 * Outbox hook: queues one delivery per enabled endpoint subscribed to the event's topic, in the
 * event's own statement, so a committed event always has its deliveries. (Workers wake on the event
 * itself, through the dispatcher, and poll for retries.)
 */
/** What an event that queued deliveries wakes (the webhook worker of every instance). */
export const WEBHOOK_WAKE = 'webhooks';

export const queueDeliveries: EmitHook = {
  sql: `insert into webhook_delivery (id, organization_id, webhook_id, event_id, event_seq, topic, status, attempts, next_attempt_at, created_at, updated_at)
        select gen_random_uuid(), w.organization_id, w.id, ?, inserted.seq, ?, 'PENDING', 0, ?, ?, ?
          from webhook w, inserted
         where w.organization_id = ? and w.disabled_at is null and ? = any(w.topics)
        returning id`,
  params: (event) => [
    event.id,
    event.topic,
    event.createdAt,
    event.createdAt,
    event.createdAt,
    event.organizationId,
    event.topic,
  ],
  wakes: WEBHOOK_WAKE,
};
