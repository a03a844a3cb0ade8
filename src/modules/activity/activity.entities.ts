import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization } from '../identity/identity.entities';
import { Request } from '../requests/request.entities';

export const ACTOR_TYPES = ['USER', 'RECIPIENT', 'SYSTEM'] as const;

/** One entry of a request's activity log: what happened, who did it, and what changed. */
export const Activity = defineEntity({
  name: 'Activity',
  tableName: 'activity',
  properties: {
    id: uuidPrimaryKey(),
    // Orders entries written in the same millisecond (an item's verification and the request's it
    // causes), which `created_at` alone cannot.
    seq: p.bigint('string').autoincrement(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    action: p.text(),
    actorType: p.enum([...ACTOR_TYPES]),
    /** The user or recipient; null for SYSTEM. */
    actorId: p.uuid().nullable(),
    /** Recorded for recipients (the audit trail of what they signed and sent). */
    ip: p.text().nullable(),
    userAgent: p.text().nullable(),
    details: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});
export type Activity = InferEntity<typeof Activity>;
/** An Activity as read paths return it (see `Row`). */
export type ActivityRow = Row<Activity>;
