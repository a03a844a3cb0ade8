import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLContext, Loaders, Viewer } from '../graphql/context';
import { afterCommit } from '../db/transaction';
import type { Variables } from '../rest/operations';
import type { StoredEvent } from './topics';

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
  /** The subject in its REST shape (`render`, `renderForAnswer`): webhook deliveries carry it. */
  data: Record<string, unknown>;
};

/** What a change needs of its operation's context to render and write its event. */
export type EmittingContext = Pick<GraphQLContext, 'viewer' | 'loaders' | 'events' | 'operations' | 'log' | 'requestId'>;

/** What an event is about, for rendering it. */
export type EventSubject = { type: string; id: string; requestId?: string | null };

/** Runs a GraphQL document for the acting viewer, through the writing transaction's entity manager. */
export type RunOperation = <TResult, TVariables extends Variables>(document: TypedDocumentNode<TResult, TVariables>, variables: TVariables) => Promise<TResult>;

/** Renders a subject in its REST shape (the REST rows' own documents and mappings do it). */
export type Renderer = (run: RunOperation, subjectId: string, requestId: string | null) => Promise<Record<string, unknown>>;

/**
 * Work queued with an event, in the event's own statement: a data-modifying query (`?` placeholders)
 * that runs beside the event's insert and may select from `inserted` (the new row's `seq`). Webhook
 * deliveries fan out here; one statement instead of one per hook, since each round trip showed.
 */
export type EmitHook = { sql: string; params: (event: Omit<StoredEvent, 'seq'>) => unknown[] };

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The transactional outbox: every state change writes its event through `emit`, in the transaction
 * of the change, so there is no event without its change and no change without its event. The
 * NOTIFY rides the same transaction and is delivered only when it commits.
 */
export class Outbox {
  constructor(
    private readonly renderers: Record<string, Renderer>,
    private readonly hooks: readonly EmitHook[],
  ) {}

  /**
   * The subject now, as the REST API shows it, read inside the writing transaction `tx` through a
   * context of its own (for a deletion, call it before deleting). `known` primes that context's
   * loaders with records the change holds as written (what it just created), so the render reads back
   * only what it does not know.
   */
  async render(tx: EntityManager, ctx: EmittingContext, subject: EventSubject, known?: (loaders: Loaders) => void): Promise<{ data: Record<string, unknown>; loaders: Loaders }> {
    const renderer = this.renderers[subject.type];
    if (!renderer) throw new Error(`no renderer for ${subject.type} events`);
    // The renderer reads through the database, so this transaction's changes must be written first.
    await tx.flush();
    const session = ctx.operations.on(ctx, tx);
    known?.(session.loaders);
    const data = await renderer((document, variables) => ctx.operations.run(session, document, variables), subject.id, subject.requestId ?? null);
    return { data, loaders: session.loaders };
  }

  /**
   * `render`, for the change `ctx` is making: once `tx` commits, `ctx` reads on through the render's
   * loaders, which hold the rows as the transaction committed them, so the operation's answer costs
   * no second round of reads.
   */
  async renderForAnswer(tx: EntityManager, ctx: EmittingContext, subject: EventSubject, known?: (loaders: Loaders) => void): Promise<Record<string, unknown>> {
    const rendered = await this.render(tx, ctx, subject, known);
    afterCommit(tx, () => {
      ctx.loaders = rendered.loaders;
    });
    return rendered.data;
  }

  /** Writes the event of a change; call it last in the change's transaction, after every write. */
  async emit(tx: EntityManager, viewer: Viewer, draft: EventDraft): Promise<StoredEvent> {
    const requestId = draft.requestId ?? null;
    const event: Omit<StoredEvent, 'seq'> = {
      id: randomUUID(),
      organizationId: viewer.organizationId,
      topic: draft.topic,
      subjectType: draft.subjectType,
      subjectId: draft.subjectId,
      requestId,
      data: draft.data,
      updated: draft.updated ? draft.updated.map(snake) : null,
      createdAt: new Date(),
    };
    // The NOTIFY is queued with the insert and goes out only when the transaction commits.
    const hooks = this.hooks.map((hook, index) => `, hook${index} as (${hook.sql})`).join('');
    const [{ seq }] = await tx.execute<{ seq: string }[]>(
      `with inserted as (
         insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) returning seq)${hooks}
       select seq, pg_notify(?, ?) from inserted`,
      [
        ...[event.id, event.organizationId, event.topic, event.subjectType, event.subjectId, requestId, JSON.stringify(draft.data), event.updated && JSON.stringify(event.updated), event.createdAt],
        ...this.hooks.flatMap((hook) => hook.params(event)),
        EVENT_CHANNEL,
        event.id,
      ],
    );
    return { ...event, seq: String(seq) };
  }
}
