import type { EntityManager } from '@mikro-orm/postgresql';
import { afterCommit, nothingToFlush } from '../db/transaction';
import type { GraphQLContext, Loaders } from '../graphql/context';

// An event's `data` is its subject as the REST API shows it, rendered inside the writing transaction
// by the subject's module (its REST document and mapping), then handed to `Outbox.emit`.

/** What a change needs of its operation's context to render and write its event. */
export type EmittingContext = Pick<
  GraphQLContext,
  'viewer' | 'loaders' | 'events' | 'operations' | 'log' | 'requestId'
>;

/** What an event is about. */
export type EventSubject = { type: string; id: string; requestId?: string | null };

/**
 * The subject now, as the REST API shows it, read inside the writing transaction `tx` through a
 * context of its own (for a deletion, call it before deleting). `known` primes that context's
 * loaders with records the change holds as written (what it just created), so the render reads back
 * only what it does not know.
 */
export async function renderSubject(
  tx: EntityManager,
  ctx: EmittingContext,
  subject: EventSubject,
  known?: (loaders: Loaders) => void,
): Promise<{ data: Record<string, unknown>; loaders: Loaders }> {
  const renderer = ctx.events.rendererOf(subject.type);
  // The renderer reads through the database, so this transaction's changes must be written first.
  if (!nothingToFlush(tx)) await tx.flush();
  const session = ctx.operations.on(ctx, tx);
  known?.(session.loaders);
  const data = await renderer(
    (document, variables) => ctx.operations.run(session, document, variables),
    subject.id,
    subject.requestId ?? null,
  );
  return { data, loaders: session.loaders };
}

/**
 * `renderSubject`, for the change `ctx` is making: once `tx` commits, `ctx` reads on through the
 * render's loaders, which hold the rows as the transaction committed them, so the operation's answer
 * costs no second round of reads.
 */
export async function renderForAnswer(
  tx: EntityManager,
  ctx: EmittingContext,
  subject: EventSubject,
  known?: (loaders: Loaders) => void,
): Promise<Record<string, unknown>> {
  const rendered = await renderSubject(tx, ctx, subject, known);
  afterCommit(tx, () => {
    ctx.loaders = rendered.loaders;
    committedRenders.set(ctx, { ...subject, data: rendered.data });
  });
  return rendered.data;
}

const committedRenders = new WeakMap<object, EventSubject & { data: Record<string, unknown> }>();

/**
 * The subject as the committed change of `ctx` rendered it for its event: its REST shape, which a REST
 * row may answer with instead of reading it again through its document (the create does). Undefined
 * when `ctx` committed no change of that subject.
 */
export function committedRender(ctx: object, type: string, id: string): Record<string, unknown> | undefined {
  const rendered = committedRenders.get(ctx);
  return rendered?.type === type && rendered.id === id ? rendered.data : undefined;
}
