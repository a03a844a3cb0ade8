import type { IResolvers } from '@graphql-tools/utils';
import type { StoredEvent } from '../events/topics';
import type { Reader } from '../db/db';
import type { GraphQLContext, ServiceSettings } from './context';

/** What an event's root field resolves to, as `ctx.viewer` may see it; null hides the event from it. */
export type SubjectLoader = (ctx: GraphQLContext, event: StoredEvent) => Promise<object | null>;

export type SubjectView = (
  db: Reader,
  settings: ServiceSettings,
  id: string,
) => Promise<Record<string, unknown> | null>;

/** A kind of record events are about (`Request`), declared by the module that owns it. */
export type EventSubject = {
  /**
   * The GraphQL type implementing `Event` for it (`RequestEvent`) and its field holding the record; none for a
   * subject whose topics `events(topics:)` does not stream (a bulk send's).
   */
  eventType?: string;
  field?: string;
  /**
   * Its view, as REST shows it: the `data` of its events, read in the writing transaction (and what
   * webhook deliveries carry); null when there is no such record.
   */
  view: SubjectView;
  /** The record for a subscriber (deleted ones too, so deletions can show what went). */
  load: SubjectLoader;
};

/** The root value of `Subscription.events`: the event with the record it is about. */
export type EventRoot = {
  eventId: string;
  topic: string;
  organizationId: string;
  createdAt: Date;
  updated: string[];
  subjectType: string;
  subject: object;
};

/** The `Event` interface's type resolution and each event type's record field. */
export function eventResolvers(subjects: Record<string, EventSubject>): IResolvers<any, GraphQLContext> {
  const resolvers: IResolvers<any, GraphQLContext> = {
    Event: { __resolveType: (event: EventRoot) => subjects[event.subjectType].eventType },
  };
  for (const { eventType, field } of Object.values(subjects))
    if (eventType && field) resolvers[eventType] = { [field]: (event: EventRoot) => event.subject };
  return resolvers;
}

/** The record of an event, loaded by its subject's module. */
export function subjectLoader(subjects: Record<string, EventSubject>): SubjectLoader {
  return (ctx, event) => subjects[event.subjectType]?.load(ctx, event) ?? Promise.resolve(null);
}
