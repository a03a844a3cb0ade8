import type { GraphQLContext } from '../../kernel/graphql/context';
import type { EventRoot } from '../../kernel/graphql/events';
import { checkPageArgs, decodeCursor, encodeCursor } from '../../kernel/graphql/pagination';
import { DEFAULT_PAGE_SIZE } from '../../kernel/limits';
import { AppError } from '../../kernel/errors/app-error';
import { isUuid } from '../../kernel/validation/input-check';
import { requestVisibility } from './request.access';

// The outbox read back: what happened on the requests a viewer sees, for a client that lost its
// subscription (a dashboard reconnecting) to ask what it missed. Events are ordered by commit time
// as recorded (created_at, then id); a transaction can commit a little after a later one's event
// was written, so a client catching up asks from a few seconds before the last event it saw and
// deduplicates on eventId (docs/graphql.md, Live updates).

export type RequestEventArgs = {
  first?: number | null;
  after?: string | null;
  since?: Date | null;
  topics?: readonly string[] | null;
  requestId?: string | null;
};

type EventLine = {
  id: string;
  topic: string;
  organization_id: string;
  created_at: Date;
  updated: string[] | null;
  request_id: string;
};

/** Events on the requests the viewer sees (deleted ones included), oldest first, as `RequestEvent`s. */
export async function listRequestEvents(
  ctx: GraphQLContext,
  args: RequestEventArgs,
): Promise<{ nodes: EventRoot[]; hasNextPage: boolean; endCursor: string | null; totalCount: () => Promise<number> }> {
  checkPageArgs(args);
  const size = args.first ?? DEFAULT_PAGE_SIZE;
  const visible = requestVisibility('r', ctx.viewer, { includeDeleted: true });
  // The events' own organization, besides the request's: what lets the page come out of the events' index.
  const filter = ['e.organization_id = ?', visible.sql];
  const params: unknown[] = [ctx.viewer.organizationId, ...visible.params];
  const where = (condition: string, ...values: unknown[]) => {
    filter.push(condition);
    params.push(...values);
  };
  if (args.since) where('e.created_at >= ?', args.since);
  if (args.topics) where('e.topic = any(?::text[])', args.topics);
  if (args.requestId != null) {
    if (!isUuid(args.requestId))
      throw AppError.validation([{ field: ['requestId'], message: 'requestId is not a UUID', code: 'INVALID' }]);
    where('e.request_id = ?', args.requestId);
  }
  const keyset = args.after ? decodeCursor(args.after, 'after') : undefined;
  const from = `from event e join request r on r.id = e.request_id where ${filter.join(' and ')}`;
  const lines = await ctx.db.rows<EventLine>(
    `select e.id, e.topic, e.organization_id, e.created_at, e.updated, e.request_id ${from}
     ${keyset ? 'and (e.created_at, e.id) > (?::timestamptz, ?::uuid)' : ''}
     order by e.created_at, e.id limit ${size + 1}`,
    [...params, ...(keyset ?? [])],
  );
  const more = lines.length > size;
  const page = more ? lines.slice(0, size) : lines;
  const requests = await ctx.loaders.requestById.loadMany(page.map((line) => line.request_id));
  const nodes: EventRoot[] = page.map((line, index) => ({
    eventId: line.id,
    topic: line.topic,
    organizationId: line.organization_id,
    createdAt: new Date(line.created_at),
    updated: line.updated ?? [],
    subjectType: 'Request',
    subject: requests[index] as object,
  }));
  const last = nodes.at(-1);
  return {
    nodes,
    hasNextPage: more,
    endCursor: last ? encodeCursor(last.createdAt, last.eventId) : null,
    // Counted only when a client selects it.
    totalCount: async () =>
      Number((await ctx.db.rows<{ count: string }>(`select count(*) as count ${from}`, params))[0].count),
  };
}
