import type { MigrationObject } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/db';
import type { ContextFactory, ServiceSettings } from '../graphql/context';
import type { TaskHandler } from '../jobs/queue';
import type { EmittedEvent } from './outbox';
import { STORED_EVENT_COLUMNS, storedEvent, type StoredEventRow } from './topics';
import { Migration20261129000000_event_consumers } from './Migration20261129000000_event_consumers';

export const EVENT_CONSUMER_MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261129000000_event_consumers', class: Migration20261129000000_event_consumers },
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
  /** Its effect of the event, in the transaction that marks the event consumed. */
  run(tx: Tx, event: EmittedEvent, deps: ConsumerDeps): Promise<void>;
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

/**
 * The `event` task: the consumers of one event, in their module order. A consumer that fails leaves
 * the others' effects in place and fails the job, which runs again later: those that succeeded find
 * the event in their ledger and skip it.
 */
export function eventTask(db: Db, consumers: readonly Consumer[], deps: ConsumerDeps): TaskHandler {
  return async ({ eventId }: { eventId: string }) => {
    const [row] = await db.rows<EventRow>(
      `select ${STORED_EVENT_COLUMNS}, action, details, actor from event where id = ?`,
      [eventId],
      { prepared: true },
    );
    if (!row) return;
    const event = toEmitted(row);
    let failure: unknown;
    for (const consumer of consumers) {
      if (!consumer.applies(event)) continue;
      try {
        await db.transaction(async (tx) => {
          const first = await tx.execute(
            `insert into event_consumer (event_id, consumer, organization_id) values (?, ?, ?) on conflict do nothing`,
            [event.id, consumer.name, event.organizationId],
            { prepared: true },
          );
          if (first === 1) await consumer.run(tx, event, deps);
        });
      } catch (err) {
        deps.log.error({ err, eventId, consumer: consumer.name }, 'an event consumer failed; the event is tried again');
        failure ??= err;
      }
    }
    if (failure) throw failure;
  };
}
