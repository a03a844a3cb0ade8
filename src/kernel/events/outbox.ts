import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/db';
import type { Actor, ServiceSettings } from '../graphql/context';
import type { SubjectView } from '../graphql/events';
import type { StoredEvent } from './topics';

/** The channel whose notifications carry the ids of committed events. */
export const EVENT_CHANNEL = 'gather_events';

/**
 * The channel whose notifications name a worker to wake (`EmitHook.wakes`) when a transaction queued
 * its work without an event: every instance's worker looks for due rows once it commits.
 */
export const WAKE_CHANNEL = 'gather_wake';

export type EventDraft = {
  topic: string;
  /** What the event is about: a subject type some module declares (`Request`). */
  subjectType: string;
  subjectId: string;
  requestId?: string | null;
  /** For request.updated: entity property names of the fields that changed (mapped to REST names). */
  updated?: string[];
  /**
   * The subject's view as REST shows it right after the change (webhook deliveries carry it); read
   * here, in the writing transaction, by its module's view unless given (a deletion reads it first).
   */
  data?: Record<string, unknown>;
  /**
   * What happened, when the topic says less (`request.sent` is a draft's `request.updated`); the
   * topic otherwise. The activity log records it, and hooks may act on it (invitations).
   */
  action?: string;
  /** What changed, beyond `updated`, for the activity log (a rejection's message and items). */
  details?: Record<string, unknown>;
};

/** An event as its hooks see it: what is stored, who caused it, and what it records. */
export type EmittedEvent = StoredEvent & {
  actor: Actor;
  action: string;
  details: Record<string, unknown> | null;
};

/**
 * Work queued with an event, in the event's own statement: a data-modifying query (`?` placeholders)
 * that runs beside the event's insert and may select from `inserted` (the new row's `seq`). Webhook
 * deliveries fan out here; one statement instead of one per hook, since each round trip showed.
 */
export type EmitHook = {
  sql: string;
  params: (event: EmittedEvent) => unknown[];
  /**
   * False for an event the hook writes nothing for (its statement's own conditions would find no row):
   * the event's statement then leaves the hook out. Each data-modifying CTE runs, and locks and opens
   * its tables and their indexes, even when it writes nothing; a create paid for four such. Absent: always in.
   */
  applies?: (event: EmittedEvent) => boolean;
  /**
   * The worker to wake when this hook queued rows (its statement must return them): the event's
   * notification names it, and only such events wake it (a statement per commit saved otherwise).
   */
  wakes?: string;
};

/** An event notification's payload: the event's id, then the workers its hooks gave work (see EmitHook). */
export const parseEventPayload = (payload: string): { id: string; wakes: string[] } => {
  const [id, ...wakes] = payload.split(' ');
  return { id, wakes };
};

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Events an instance keeps after writing them, for its own dispatcher (`take`): enough for the
 * notifications in flight; those of transactions that rolled back, never asked for, go oldest first.
 */
const MAX_WRITTEN = 1000;

/**
 * Event statements of different sets of hooks (see EmitHook.applies), each prepared: the sets follow
 * the events' actions and changed fields, a handful in practice. Past the bound an event takes the
 * statement with every hook, which is right for any event.
 */
const MAX_STATEMENTS = 12;

/**
 * The transactional outbox: every state change writes its event through `emit`, in the transaction
 * of the change, so there is no event without its change and no change without its event. The
 * NOTIFY rides the same transaction and is delivered only when it commits.
 */
export class Outbox {
  /**
   * The event's statement for each set of hooks (their indexes, joined): its insert, those hooks beside it, and its
   * NOTIFY (queued until the commit).
   */
  private readonly statements = new Map<string, string>();
  /** Events this instance wrote, by id, until its dispatcher takes them (see `take`). */
  private readonly written = new Map<string, StoredEvent>();
  /** Every hook's index: the statement with all of them is right for any event. */
  private readonly every: number[];

  constructor(
    private readonly views: Record<string, SubjectView>,
    private readonly settings: ServiceSettings,
    private readonly hooks: readonly EmitHook[],
  ) {
    this.every = hooks.map((_, index) => index);
  }

  /** The event's statement with the hooks `used` (their indexes; each CTE named by its hook's). */
  private statementOf(used: readonly number[]): string {
    const withHooks = used.map((index) => `, hook${index} as (${this.hooks[index].sql})`).join('');
    const wakes = used
      .map((index) =>
        this.hooks[index].wakes
          ? ` || case when exists (select from hook${index}) then ' ${this.hooks[index].wakes}' else '' end`
          : '',
      )
      .join('');
    const sql = `with inserted as (
         insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) returning seq)${withHooks}
       select seq, pg_notify(?, ?::text${wakes}) from inserted`;
    this.statements.set(used.join(), sql);
    return sql;
  }

  /** The subject's view now, in the writing transaction. */
  private async viewOf(tx: Tx, subjectType: string, subjectId: string): Promise<Record<string, unknown>> {
    const view = this.views[subjectType];
    if (!view) throw new Error(`no view of ${subjectType} records for their events`);
    const data = await view(tx, this.settings, subjectId);
    if (!data) throw new Error(`${subjectType} ${subjectId} is not there to show in its event`);
    return data;
  }

  /** Writes the event of a change; call it last in the change's transaction, after every write. */
  async emit(tx: Tx, viewer: { organizationId: string; actor: Actor }, draft: EventDraft): Promise<StoredEvent> {
    const requestId = draft.requestId ?? null;
    const data = draft.data ?? (await this.viewOf(tx, draft.subjectType, draft.subjectId));
    const event: StoredEvent = {
      id: randomUUID(),
      organizationId: viewer.organizationId,
      topic: draft.topic,
      subjectType: draft.subjectType,
      subjectId: draft.subjectId,
      requestId,
      data,
      updated: draft.updated ? draft.updated.map(snake) : null,
      createdAt: new Date(),
    };
    const emitted: EmittedEvent = {
      ...event,
      actor: viewer.actor,
      action: draft.action ?? draft.topic,
      details: draft.details ?? null,
    };
    // A lean statement with bind parameters: through MikroORM and knex, the rendered JSON (a few KB)
    // was formatted into the statement's text, and their runner showed in the create's profile. It is
    // prepared: parsing and planning its hooks' CTEs cost PostgreSQL about as much as the rest of a
    // create (bench/README.md). Nothing reads its answer, and it is the transaction's last write:
    // a lean transaction sends it with its commit.
    let used = this.every.filter((index) => this.hooks[index].applies?.(emitted) ?? true);
    let sql = this.statements.get(used.join());
    if (sql === undefined) {
      if (this.statements.size >= MAX_STATEMENTS) used = this.every;
      sql = this.statements.get(used.join()) ?? this.statementOf(used);
    }
    const params: unknown[] = [
      event.id,
      event.organizationId,
      event.topic,
      event.subjectType,
      event.subjectId,
      requestId,
      JSON.stringify(data),
      event.updated && JSON.stringify(event.updated),
      event.createdAt,
    ];
    for (const index of used) params.push(...this.hooks[index].params(emitted));
    params.push(EVENT_CHANNEL, event.id);
    await tx.execute(sql, params, { prepared: true });
    if (this.written.size >= MAX_WRITTEN) this.written.delete(this.written.keys().next().value!);
    this.written.set(event.id, event);
    return event;
  }

  /**
   * An event this instance wrote, once, as `emit` returned it: its dispatcher hands it out when the
   * event's notification arrives (so once it committed) without reading the row back. Its `data` is
   * the rendering itself, in the order the renderer built it (a read of the row gives jsonb's order).
   */
  take(id: string): StoredEvent | undefined {
    const event = this.written.get(id);
    if (event) this.written.delete(id);
    return event;
  }
}
