import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/db';
import type { Actor, ServiceSettings } from '../graphql/context';
import type { SubjectView } from '../graphql/events';
import { QUEUE_FENCE, queueOf } from '../jobs/queue';
import type { Consumer } from './consumers';
import type { StoredEvent } from './topics';

/**
 * Queues the requests' events are consumed in (`queueOf`): those of one request one after the other. Few: each job a
 * worker takes locks the row of every idle queue (see `JobOptions.queue`), and an event's job takes along the events
 * waiting after it, so four keep two instances' workers busy.
 */
const EVENT_QUEUES = 4;

/** How an event's job is named (its key): this and the event's id. */
export const EVENT_JOB_PREFIX = 'event:';

/** The channel whose notifications carry the ids of committed events. */
export const EVENT_CHANNEL = 'gather_events';

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
   * topic otherwise. The activity log records it, and consumers may act on it (invitations).
   */
  action?: string;
  /** What changed, beyond `updated`, for the activity log (a rejection's message and items). */
  details?: Record<string, unknown>;
};

/** An event as its consumers see it: what is stored, who caused it, and what it records. */
export type EmittedEvent = StoredEvent & {
  actor: Actor;
  action: string;
  details: Record<string, unknown> | null;
};

/**
 * The event row, its notification (delivered at commit) and, when a consumer applies, the job that runs
 * the consumers after the commit. A request's jobs share a queue and run in `run_at` order, which
 * `clock_timestamp()` gives the events of one transaction as they were written (`now()` would tie them); the queue's
 * fence (`QUEUE_FENCE`) is taken before the job is added (a select list is evaluated from left to right).
 * Prepared, with bind parameters: the event's JSON is a few KB. The job's key is the new event's, never added before,
 * so the mode that only inserts it (`unsafe_dedupe`) adds it as `replace` would, without the locks replacing takes.
 */
const EMIT = `with inserted as (
     insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at, action, details, actor, job_queue)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?::jsonb, ?::jsonb, ?) returning id, job_queue)
   select pg_notify(?, id::text),
          case when job_queue is not null then ${QUEUE_FENCE} end,
          case when ?::boolean then graphile_worker.add_job('event', json_build_object('eventId', id),
            queue_name => job_queue, job_key => '${EVENT_JOB_PREFIX}' || id, run_at => clock_timestamp(),
            job_key_mode => 'unsafe_dedupe') end
     from inserted`;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Events an instance keeps after writing them, for its own dispatcher (`take`): enough for the
 * notifications in flight; those of transactions that rolled back, never asked for, go oldest first.
 */
const MAX_WRITTEN = 1000;

/**
 * The transactional outbox: every state change writes its event through `emit`, in the transaction
 * of the change, so there is no event without its change and no change without its event. The
 * NOTIFY rides the same transaction and is delivered only when it commits.
 */
export class Outbox {
  /** Events this instance wrote, by id, until its dispatcher takes them (see `take`). */
  private readonly written = new Map<string, StoredEvent>();

  constructor(
    private readonly views: Record<string, SubjectView>,
    private readonly settings: ServiceSettings,
    private readonly consumers: readonly Consumer[],
  ) {}

  /** The subject's view now, in the writing transaction. */
  private async viewOf(tx: Tx, subjectType: string, subjectId: string): Promise<Record<string, unknown>> {
    const view = this.views[subjectType];
    if (!view) throw new Error(`no view of ${subjectType} records for their events`);
    const data = await view(tx, this.settings, subjectId);
    if (!data) throw new Error(`${subjectType} ${subjectId} is not there to show in its event`);
    return data;
  }

  /** Writes the event of a change; call it last in the change's transaction, after every write. */
  async emit(tx: Tx, viewer: { organizationId: string; actor: Actor }, draft: EventDraft): Promise<EmittedEvent> {
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
    const wanted = this.consumers.some((consumer) => consumer.applies(emitted));
    // A request's events are consumed one after the other, in the order they were written (with the other requests'
    // of their queue).
    const queue = wanted && requestId ? queueOf('events:', requestId, EVENT_QUEUES) : null;
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
      draft.action ?? null,
      emitted.details && JSON.stringify(emitted.details),
      JSON.stringify(emitted.actor),
      queue,
      EVENT_CHANNEL,
      wanted,
    ];
    await tx.execute(EMIT, params, { prepared: true });
    if (this.written.size >= MAX_WRITTEN) this.written.delete(this.written.keys().next().value!);
    this.written.set(event.id, event);
    return emitted;
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
