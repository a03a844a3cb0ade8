import type { Tx } from '../../kernel/db/db';
import { seal, unseal } from '../../kernel/crypto/seal';
import { AppError } from '../../kernel/errors/app-error';
import type { Consumer } from '../../kernel/events/consumers';
import type { EmittedEvent } from '../../kernel/events/outbox';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { addJob, addJobs } from '../../kernel/jobs/queue';
import { isUuid } from '../../kernel/validation/input-check';
import { isAdmin } from '../identity/viewer';
import type { Language } from '../requests/request.enums';
import {
  Notification,
  type NotificationChannel,
  type NotificationKind,
  type NotificationRow,
  type NotificationStatus,
} from './notification.entities';
import { NOTIFICATIONS_PER_JOB } from './notification.limits';
import type { TemplateParams, TemplateSecrets } from './notification.templates';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'loaders'>;

const SECRETS_PURPOSE = 'notification-secrets';

export const sealSecrets = (serverSecret: string, secrets: Record<string, string>) =>
  seal(serverSecret, SECRETS_PURPOSE, JSON.stringify(secrets));
export const unsealSecrets = (serverSecret: string, sealed: string): Record<string, string> =>
  JSON.parse(unseal(serverSecret, SECRETS_PURPOSE, sealed));

/**
 * One message to queue: for a recipient of the request (links are theirs), a user, or an address alone (an
 * escalation's).
 */
export type NotificationDraft<K extends NotificationKind> = {
  organizationId: string;
  requestId: string | null;
  to: { recipientId: string } | { userId: string } | { address: true };
  channel: NotificationChannel;
  address: string;
  language: Language;
  kind: K;
  params: TemplateParams[K];
} & (keyof TemplateSecrets[K] extends never ? { secrets?: undefined } : { secrets: TemplateSecrets[K] });

/** The task that renders and sends messages (notification.worker.ts). */
export const SEND_TASK = 'notification.send';

/**
 * Adds a message's job in the caller's transaction, so it goes out if and only if that commits. The key is the
 * message's: adding it again (a retry) moves its waiting job rather than adding a second.
 */
export const queueSend = (tx: Tx, notificationId: string, runAt?: Date) =>
  addJob(tx, SEND_TASK, { notificationId }, { key: `notification:${notificationId}`, runAt });

/**
 * Adds the jobs of messages queued together, in the caller's transaction, in one statement: NOTIFICATIONS_PER_JOB to a
 * job, each job's in the order given. Their retries go one by one (`queueSend`).
 */
export async function queueSends(tx: Tx, notificationIds: readonly string[]): Promise<void> {
  const jobs: { payload: { notificationIds: string[] } }[] = [];
  for (let at = 0; at < notificationIds.length; at += NOTIFICATIONS_PER_JOB)
    jobs.push({ payload: { notificationIds: notificationIds.slice(at, at + NOTIFICATIONS_PER_JOB) } });
  await addJobs(tx, SEND_TASK, jobs);
}

/**
 * Queues a message in the caller's transaction (its row and its job), so it goes out if and only if the change that
 * causes it commits; the job renders and sends it after the commit. `serverSecret` seals the kind's secrets (a
 * one-time code) until they are sent.
 */
export async function queueNotification<K extends NotificationKind>(
  tx: Tx,
  serverSecret: string,
  draft: NotificationDraft<K>,
): Promise<string> {
  const now = new Date();
  const secrets = draft.secrets as Record<string, string> | undefined;
  const [{ id }] = await tx.rows<{ id: string }>(
    `insert into notification (id, organization_id, request_id, recipient_id, user_id, channel, kind, address, language, params, secrets_sealed, status, attempts, next_attempt_at, created_at, updated_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, 'PENDING', 0, ?, ?, ?) returning id`,
    [
      draft.organizationId,
      draft.requestId,
      'recipientId' in draft.to ? draft.to.recipientId : null,
      'userId' in draft.to ? draft.to.userId : null,
      draft.channel,
      draft.kind,
      draft.address,
      draft.language,
      JSON.stringify(draft.params),
      secrets && Object.keys(secrets).length ? sealSecrets(serverSecret, secrets) : null,
      now,
      now,
      now,
    ],
  );
  await queueSend(tx, id);
  return id;
}

/**
 * Queues a copy of a message on another channel and address (a bounced reminder's SMS), in the caller's
 * transaction; answers the copy's id.
 */
export async function queueCopy(tx: Tx, notificationId: string, channel: NotificationChannel, address: string) {
  const now = new Date();
  const [{ id }] = await tx.rows<{ id: string }>(
    `insert into notification (id, organization_id, request_id, recipient_id, channel, kind, address, language, params, status, attempts, next_attempt_at, created_at, updated_at)
     select gen_random_uuid(), organization_id, request_id, recipient_id, ?, kind, ?, language, params, 'PENDING', 0, ?, ?, ? from notification where id = ?
     returning id`,
    [channel, address, now, now, now, notificationId],
  );
  await queueSend(tx, id);
  return id;
}

/**
 * The message an event sends the request's recipients, if any: the invitation when the request goes
 * out (created unless a draft or `skip_initial_notification`, a draft sent, one recipient's link
 * regenerated: that recipient's alone), the change request when the owner rejects (its message and
 * the names of the items to redo, from the event's data).
 */
function recipientMessage(
  event: EmittedEvent,
): { kind: NotificationKind; recipientId: string | null; params: Record<string, unknown> } | null {
  switch (event.action) {
    case 'request.created':
      // A draft invites nobody until it is sent (decided by the event: the request may be sent by now).
      return event.data.state === 'PRE_LINK_GENERATED' ? null : { kind: 'INVITATION', recipientId: null, params: {} };
    case 'request.sent':
      return { kind: 'INVITATION', recipientId: null, params: {} };
    case 'link.regenerated':
      return { kind: 'INVITATION', recipientId: event.details?.recipient_id as string, params: {} };
    case 'request.rejected': {
      const itemIds = new Set(event.details?.item_ids as string[]);
      const items = (event.data.items as { id: string; name: string }[]).filter((item) => itemIds.has(item.id));
      return {
        kind: 'CHANGES_REQUESTED',
        recipientId: null,
        params: { message: event.details?.message, itemNames: items.map((item) => item.name) },
      };
    }
    default:
      return null;
  }
}

/**
 * Once events committed: the messages they send the recipients (`recipientMessage`), all in one statement, and the
 * jobs that send them (`queueSends`). A recipient gets an email when it has an address and did not ask for SMS alone,
 * and an SMS when it asked for one (SMS, BOTH, MULTIPLE) or has only a phone. The request is read as it is now (a
 * deleted one invites nobody).
 */
export const notificationsConsumer: Consumer = {
  name: 'notifications',
  applies: (event) => recipientMessage(event) !== null,
  run: async (tx, events) => {
    const messages = events.map((event) => ({ event, message: recipientMessage(event)! }));
    const queued = await tx.rows<{ id: string }>(
      `insert into notification (id, organization_id, request_id, recipient_id, channel, kind, address, language, params, status, attempts, next_attempt_at, created_at, updated_at)
       select gen_random_uuid(), r.organization_id, r.id, rc.id, ch.channel, ev.kind, ch.address, coalesce(rc.language, r.language),
              jsonb_build_object(
                'requestName', r.name,
                'senderName', coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email),
                'organizationName', o.name,
                'recipientFirstName', rc.first_name,
                'personalMessage', r.personal_message,
                'dueDate', r.due_date) || ev.params,
              'PENDING', 0, ev.at, ev.at, ev.at
         from unnest(?::uuid[], ?::uuid[], ?::text[], ?::jsonb[], ?::uuid[], ?::boolean[], ?::timestamptz[])
                with ordinality as ev (request_id, organization_id, kind, params, recipient_id, created, at, position)
         join request r on r.id = ev.request_id and r.organization_id = ev.organization_id
         join app_user u on u.id = r.owner_id
         join organization o on o.id = r.organization_id
         join recipient rc on rc.request_id = r.id
         cross join lateral (values
           ('EMAIL', case when rc.email is not null and (rc.send_method <> 'SMS' or rc.phone is null) then rc.email end),
           ('SMS', case when rc.phone is not null and (rc.send_method in ('SMS', 'BOTH', 'MULTIPLE') or rc.email is null) then rc.phone end)
         ) as ch (channel, address)
        where r.deleted_at is null and (ev.recipient_id is null or rc.id = ev.recipient_id)
          and (not ev.created or not r.skip_initial_notification) and ch.address is not null
        order by ev.position, rc.position, ch.channel
       returning id`,
      [
        messages.map(({ event }) => event.requestId),
        messages.map(({ event }) => event.organizationId),
        messages.map(({ message }) => message.kind),
        messages.map(({ message }) => JSON.stringify(message.params)),
        messages.map(({ message }) => message.recipientId),
        messages.map(({ event }) => event.action === 'request.created'),
        messages.map(({ event }) => event.createdAt),
      ],
      { prepared: true },
    );
    await queueSends(
      tx,
      queued.map((row) => row.id),
    );
  },
};

// The messages hold addresses and what was said to recipients: the organization's ADMIN reads them.
function requireAdmin(ctx: Ctx): void {
  if (!isAdmin(ctx.viewer)) throw AppError.forbidden('Only an ADMIN may read notifications');
}

export async function getNotification(ctx: Ctx, id: string): Promise<NotificationRow | null> {
  requireAdmin(ctx);
  const notification = isUuid(id) ? await ctx.loaders.notificationById.load(id) : null;
  return notification?.organization.id === ctx.viewer.organizationId ? notification : null;
}

export async function listNotifications(
  ctx: Ctx,
  args: PageArgs & { requestId?: string | null; status?: NotificationStatus | null },
): Promise<Connection<NotificationRow>> {
  requireAdmin(ctx);
  const conditions = ['n.organization_id = ?'];
  const params: unknown[] = [ctx.viewer.organizationId];
  const where = (condition: string, value: unknown) => {
    conditions.push(condition);
    params.push(value);
  };
  // An id that is no UUID names nothing: it narrows the list as an unknown id would.
  if (args.requestId != null) where('n.request_id = any(?::uuid[])', [args.requestId].filter(isUuid));
  if (args.status) where('n.status = ?', args.status);
  return paginate(
    {
      db: ctx.db,
      entity: Notification,
      sql: `select n.* from notification n where ${conditions.join(' and ')}`,
      params,
    },
    args,
    {
      property: 'createdAt',
      column: 'created_at',
      direction: 'DESC',
    },
  );
}
