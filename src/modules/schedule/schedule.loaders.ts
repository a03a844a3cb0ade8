import DataLoader from 'dataloader';
import type { Reader } from '../../kernel/db/db';
import { createChildrenLoader, type LoaderSet } from '../../kernel/db/loaders';
import { Escalation, ScheduledReminder } from './schedule.entities';

// One statement per relation per operation, whatever the number of requests listed.
export const scheduleLoaders = {
  scheduledRemindersByRequest: (db: Reader) =>
    createChildrenLoader(db, ScheduledReminder, 'request', { sendAt: 'asc', id: 'asc' }),
  escalationsByRequest: (db: Reader) =>
    createChildrenLoader(db, Escalation, 'request', { createdAt: 'asc', id: 'asc' }),
  /** When each request's next reminder of any kind is due. */
  nextReminderByRequest: (db: Reader) =>
    new DataLoader<string, Date | null>(async (ids) => {
      const rows = await db.rows<{ request_id: string; due_at: Date }>(
        `select request_id, min(due_at) as due_at from job
          where request_id = any(?::uuid[]) and status = 'PENDING' and kind in ('REMINDER', 'DEFERRED_REMINDER', 'SCHEDULED_REMINDER')
          group by request_id`,
        [ids],
      );
      const due = new Map(rows.map((row) => [row.request_id, row.due_at]));
      return ids.map((id) => due.get(id) ?? null);
    }),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof scheduleLoaders> {}
}
