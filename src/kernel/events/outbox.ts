import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Viewer } from '../graphql/context';
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
  /** The REST shape, when the caller rendered it already (before a deletion hides the record). */
  data?: Record<string, unknown>;
};

/** Runs a GraphQL document for the acting viewer, through the writing transaction's entity manager. */
export type RunOperation = <TResult, TVariables extends Variables>(document: TypedDocumentNode<TResult, TVariables>, variables: TVariables) => Promise<TResult>;

/** Where renders run: an operation runner and the loaders its documents read through. */
export type RenderSession<L> = { run: RunOperation; loaders: L };

/** The part of an operation's context that emitting needs: who acts, and the loaders it reads with. */
export type Emitter<L> = { viewer: Viewer; loaders: L };

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
export class Outbox<L = unknown> {
  private readonly hooks: EmitHook[] = [];

  constructor(
    private readonly session: (em: EntityManager, viewer: Viewer) => RenderSession<L>,
    private readonly renderers: Record<string, Renderer>,
  ) {}

  addHook(hook: EmitHook): void {
    this.hooks.push(hook);
  }

  /** Renders the subject now, as the REST API shows it (for deletions, call before deleting). */
  async render(em: EntityManager, viewer: Viewer, subjectType: string, subjectId: string, requestId: string | null = null): Promise<Record<string, unknown>> {
    return (await this.renderIn(em, viewer, subjectType, subjectId, requestId)).data;
  }

  private async renderIn(em: EntityManager, viewer: Viewer, subjectType: string, subjectId: string, requestId: string | null, known?: (loaders: L) => void) {
    const renderer = this.renderers[subjectType];
    if (!renderer) throw new Error(`no renderer for ${subjectType} events`);
    // The renderer reads through the database, so this transaction's changes must be written first.
    await em.flush();
    const session = this.session(em, viewer);
    known?.(session.loaders);
    return { data: await renderer(session.run, subjectId, requestId), loaders: session.loaders };
  }

  /**
   * Writes the event of a change; call it last in the change's transaction, after every write.
   * `known` primes the render's loaders with records the change holds as written (what it just
   * created), so the render reads back only what it does not know.
   */
  async emit(em: EntityManager, emitter: Emitter<L>, draft: EventDraft, known?: (loaders: L) => void): Promise<StoredEvent> {
    const { viewer } = emitter;
    const requestId = draft.requestId ?? null;
    let data = draft.data;
    if (!data) {
      const rendered = await this.renderIn(em, viewer, draft.subjectType, draft.subjectId, requestId, known);
      data = rendered.data;
      // The render's loaders hold the rows as this transaction commits them: once it has, the
      // operation reads on through them, so its payload costs no second round of reads.
      afterCommit(em, () => {
        emitter.loaders = rendered.loaders;
      });
    }
    const event: Omit<StoredEvent, 'seq'> = {
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
    // The NOTIFY is queued with the insert and goes out only when the transaction commits.
    const hooks = this.hooks.map((hook, index) => `, hook${index} as (${hook.sql})`).join('');
    const [{ seq }] = await em.execute<{ seq: string }[]>(
      `with inserted as (
         insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) returning seq)${hooks}
       select seq, pg_notify(?, ?) from inserted`,
      [
        ...[event.id, event.organizationId, event.topic, event.subjectType, event.subjectId, requestId, JSON.stringify(data), event.updated && JSON.stringify(event.updated), event.createdAt],
        ...this.hooks.flatMap((hook) => hook.params(event)),
        EVENT_CHANNEL,
        event.id,
      ],
    );
    return { ...event, seq: String(seq) };
  }
}
