import type { MigrationObject } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/db';
import type { ContextFactory, ServiceSettings } from '../graphql/context';
import { completeJobs, jobsAlong, type TaskHandler } from '../jobs/queue';
import { EVENT_JOB_PREFIX, type EmittedEvent } from './outbox';
import { STORED_EVENT_COLUMNS, storedEvent, type StoredEventRow } from './topics';
import { Migration20261129000000_event_consumers } from './Migration20261129000000_event_consumers';
import { Migration20261205000000_event_job_queue } from './Migration20261205000000_event_job_queue';

export const EVENT_CONSUMER_MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261129000000_event_consumers', class: Migration20261129000000_event_consumers },
  { name: 'Migration20261205000000_event_job_queue', class: Migration20261205000000_event_job_queue },
];

// What follows an event (mail, webhook deliveries, the activity log, timed work) is the work of its
// consumers, run by the job queue once the event's transaction committed: one `event` job per event
// that some consumer applies to, each consumer in a transaction of its own, at most once per event.

/** What consumers may use beside their transaction. */
export type ConsumerDeps = { settings: ServiceSettings; contexts: ContextFactory; log: FastifyBaseLogger };

export type Consumer = {
  /** Its name in the ledger of consumed events (`event_consumer`): renaming it consumes every event again. */
  name: string;
  /** Whether the event concerns it; asked when the event is written, so an event nothing consumes adds no job. */
  applies(event: EmittedEvent): boolean;
  /**
   * Its effects of events it has not consumed yet, in the order they were written, in the transaction that marks them
   * consumed (`eachEvent` when it takes them one at a time).
   */
  run(tx: Tx, events: readonly EmittedEvent[], deps: ConsumerDeps): Promise<void>;
};

/** A consumer's `run` made of its effect of one event, taken one after the other. */
export const eachEvent =
  (run: (tx: Tx, event: EmittedEvent, deps: ConsumerDeps) => Promise<void>): Consumer['run'] =>
  async (tx, events, deps) => {
    for (const event of events) await run(tx, event, deps);
  };

type EventRow = StoredEventRow & {
  action: string | null;
  details: Record<string, unknown> | null;
  actor: EmittedEvent['actor'] | null;
};

const toEmitted = (row: EventRow): EmittedEvent => ({
  ...storedEvent(row),
  action: row.action ?? row.topic,
  details: row.details,
  actor: row.actor ?? { type: 'SYSTEM', id: null },
});

/** Events a worker consumes at once, its job's and those it takes along from its queue (`jobsAlong`). */
export const EVENTS_AT_ONCE = 100;

/**
 * The `event` task: the consumers of an event, and of the events waiting after it in its queue, in their module order.
 * Usually all of them take all the events in one transaction, which marks them consumed and completes the jobs taken
 * along. If that fails, each consumer takes them in a transaction of its own, and one that fails again takes them one
 * by one, so that an event it cannot consume holds back no other. An event some consumer failed keeps its job (its own
 * job fails, and runs again later); the consumers that succeeded find the event in their ledger and skip it.
 */
export function eventTask(db: Db, consumers: readonly Consumer[], deps: ConsumerDeps): TaskHandler {
  return async ({ eventId }: { eventId: string }, helpers) => {
    // Its event, then those written after it to its queue (by the event's index, in the order written): those whose
    // jobs wait are taken along.
    const [own, ...after] = await db.rows<EventRow>(
      `select ${STORED_EVENT_COLUMNS}, action, details, actor, seq from event where id = ?
       union all
       (select ${STORED_EVENT_COLUMNS}, action, details, actor, seq from event e
         where e.job_queue = (select job_queue from event where id = ?) and e.seq > (select seq from event where id = ?)
         order by e.seq limit ?)
       order by seq`,
      [eventId, eventId, eventId, EVENTS_AT_ONCE - 1],
      { prepared: true },
    );
    // Deleted with its organization since.
    if (!own) return;
    const along = await jobsAlong(
      db,
      helpers.job,
      after.map((row) => EVENT_JOB_PREFIX + row.id),
    );
    const waiting = new Set(along.map((job) => job.key));
    const events = [own, ...after.filter((row) => waiting.has(EVENT_JOB_PREFIX + row.id))].map(toEmitted);
    try {
      await db.transaction(async (tx) => {
        await consume(tx, consumers, events, deps);
        await completeJobs(
          tx,
          along.map((job) => job.jobId),
        );
      });
      return;
    } catch {
      // Consumer by consumer, below: the failure is logged there, with its event and consumer.
    }
    const failed = new Map<string, unknown>();
    for (const consumer of consumers) {
      try {
        await db.transaction((tx) => consume(tx, [consumer], events, deps));
      } catch {
        for (const event of events) {
          try {
            await db.transaction((tx) => consume(tx, [consumer], [event], deps));
          } catch (err) {
            deps.log.error(
              { err, eventId: event.id, consumer: consumer.name },
              'an event consumer failed; the event is tried again',
            );
            if (!failed.has(event.id)) failed.set(event.id, err);
          }
        }
      }
    }
    const done = along.filter((job) => !failed.has(job.key.slice(EVENT_JOB_PREFIX.length))).map((job) => job.jobId);
    if (done.length > 0) await db.transaction((tx) => completeJobs(tx, done));
    if (failed.has(eventId)) throw failed.get(eventId);
  };
}

/**
 * Consumers' effects of the events that concern them and they have not consumed yet, with their marks in their ledger
 * (one statement for them all), in the caller's transaction.
 */
async function consume(
  tx: Tx,
  consumers: readonly Consumer[],
  events: readonly EmittedEvent[],
  deps: ConsumerDeps,
): Promise<void> {
  const marks = consumers.flatMap((consumer) =>
    events.filter((event) => consumer.applies(event)).map((event) => ({ consumer: consumer.name, event })),
  );
  if (marks.length === 0) return;
  const first = await tx.rows<{ event_id: string; consumer: string }>(
    `insert into event_consumer (event_id, consumer, organization_id)
     select * from unnest(?::uuid[], ?::text[], ?::uuid[])
     on conflict do nothing returning event_id, consumer`,
    [
      marks.map((mark) => mark.event.id),
      marks.map((mark) => mark.consumer),
      marks.map((mark) => mark.event.organizationId),
    ],
    { prepared: true },
  );
  const marked = new Set(first.map((row) => `${row.consumer} ${row.event_id}`));
  for (const consumer of consumers) {
    const unconsumed = events.filter((event) => marked.has(`${consumer.name} ${event.id}`));
    if (unconsumed.length > 0) await consumer.run(tx, unconsumed, deps);
  }
}
