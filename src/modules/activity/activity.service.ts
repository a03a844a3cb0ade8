import type { Tx } from '../../kernel/db/db';
import type { Consumer } from '../../kernel/events/consumers';
import type { EmittedEvent } from '../../kernel/events/outbox';
import type { Actor, GraphQLContext } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { isUuid } from '../../kernel/validation/input-check';
import type { Action } from '../events/event.topics';
import { findVisibleRequest } from '../requests/request.access';
import { Activity, type ActivityRow } from './activity.entities';

// Every event on a request is an entry (its consumer, below, after the event committed); what has no
// topic (a recipient opening the link) is recorded with `recordActivity`, in the act's transaction.

const INSERT = `insert into activity (id, organization_id, request_id, action, actor_type, actor_id, ip, user_agent, details, created_at)
  select gen_random_uuid(), ?, ?::uuid, ?, ?, ?::uuid, ?, ?, ?::jsonb, ? where ?::uuid is not null`;

type Entry = {
  organizationId: string;
  requestId: string | null;
  action: string;
  actor: Actor;
  details: Record<string, unknown>;
  createdAt: Date;
};

const paramsOf = (entry: Entry) => [
  entry.organizationId,
  entry.requestId,
  entry.action,
  entry.actor.type,
  entry.actor.id,
  entry.actor.ip ?? null,
  entry.actor.userAgent ?? null,
  JSON.stringify(entry.details),
  entry.createdAt,
  entry.requestId,
];

/** How an event's details name a subject other than the request (`item_id`). */
const SUBJECT_KEYS: Record<string, string> = {
  RequestItem: 'item_id',
  Document: 'document_id',
  Contract: 'contract_id',
};

/**
 * What an event changed: its subject when that is not the request, the fields it updated, and what its emitter adds.
 */
function detailsOf(event: EmittedEvent): Record<string, unknown> {
  const subjectKey =
    event.subjectType === 'Request'
      ? null
      : (SUBJECT_KEYS[event.subjectType] ?? `${event.subjectType.toLowerCase()}_id`);
  return {
    ...(subjectKey ? { [subjectKey]: event.subjectId } : {}),
    ...(event.updated ? { updated: event.updated } : {}),
    ...event.details,
  };
}

/** Each event on a request becomes an entry of its activity log, by the event's actor, at its time. */
export const activityConsumer: Consumer = {
  name: 'activity',
  applies: (event) => event.requestId != null,
  run: async (tx, events) => {
    // One statement for them all, in their order (entries of one time are ordered by `seq`).
    await tx.execute(
      `insert into activity (id, organization_id, request_id, action, actor_type, actor_id, ip, user_agent, details, created_at)
       select gen_random_uuid(), e.* from unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::jsonb[], ?::timestamptz[])
                                    as e (organization_id, request_id, action, actor_type, actor_id, ip, user_agent, details, created_at)`,
      [
        events.map((event) => event.organizationId),
        events.map((event) => event.requestId),
        events.map((event) => event.action),
        events.map((event) => event.actor.type),
        events.map((event) => event.actor.id),
        events.map((event) => event.actor.ip ?? null),
        events.map((event) => event.actor.userAgent ?? null),
        events.map((event) => JSON.stringify(detailsOf(event))),
        events.map((event) => event.createdAt),
      ],
      { prepared: true },
    );
  },
};

export type ActivityInput = {
  organizationId: string;
  requestId: string;
  action: Action;
  actor: Actor;
  details?: Record<string, unknown>;
};

/**
 * Records an action that raises no event (a recipient opened the link, signed in): one statement, in
 * the caller's transaction. Changes that emit an event are recorded by their event.
 */
export async function recordActivity(tx: Tx, input: ActivityInput): Promise<void> {
  await tx.execute(INSERT, paramsOf({ ...input, details: input.details ?? {}, createdAt: new Date() }));
}

/** A page of a request's activity, newest first (the request is one the viewer sees: the resolver's parent). */
export function listActivity(
  ctx: Pick<GraphQLContext, 'db'>,
  request: { id: string },
  args: PageArgs,
): Promise<Connection<ActivityRow>> {
  return paginate(
    { db: ctx.db, entity: Activity, sql: 'select a.* from activity a where a.request_id = ?', params: [request.id] },
    args,
    // When it happened: an event's entry is written once the event committed, maybe after a later act's.
    { property: 'createdAt', column: 'created_at', direction: 'DESC', tie: 'seq' },
  );
}

/** An entry, if the viewer sees its request (`node(id)`). */
export async function getActivity(ctx: Pick<GraphQLContext, 'db' | 'viewer'>, id: string): Promise<ActivityRow | null> {
  const [entry] = isUuid(id)
    ? await ctx.db.records(Activity, 'select * from activity where id = ? and organization_id = ?', [
        id,
        ctx.viewer.organizationId,
      ])
    : [];
  return entry && (await findVisibleRequest(ctx.db, ctx.viewer, entry.request.id)) ? entry : null;
}
